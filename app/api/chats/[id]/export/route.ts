import { getApp } from '@/server/app';
import { requireUser } from '@/server/auth/current-user';
import { exportChat } from '@/server/chat/export';
import { chatIdSchema } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { handle, notFound } from '@/server/http';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ id: string }> };

/** `GET /api/chats/:id/export?format=md|json`: the chat as a download. */
export const GET = handle(async (request: Request, { params }: Params) => {
  const _user = await requireUser(request); // whose chats: the per-person queries take _user.id
  const { id } = await params;
  const parsed = chatIdSchema.safeParse(id);
  if (!parsed.success) throw new AppError('bad_request:chat', `Invalid chat id: ${parsed.error.issues[0]?.message}`);
  const format = new URL(request.url).searchParams.get('format') ?? 'md';
  if (format !== 'md' && format !== 'json') {
    throw new AppError('bad_request:chat', 'Unknown export format: use format=md or format=json');
  }
  const view = getApp().store.loadChatView(parsed.data);
  if (!view) throw notFound('chat', parsed.data);
  const file = exportChat(view, format);
  return new Response(file.body, {
    headers: {
      'content-type': file.contentType,
      'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.fileName)}`,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    },
  });
});
