import { storeFor } from '@/app/_lib/store';
import { exportChat } from '@/server/chat/export';
import { chatIdFrom } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { handle, notFound } from '@/server/http';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ id: string }> };

/** `GET /api/chats/:id/export?format=md|json`: the chat as a download. */
export const GET = handle(async (request: Request, { params }: Params) => {
  const chatId = await chatIdFrom(params);
  const format = new URL(request.url).searchParams.get('format') ?? 'md';
  if (format !== 'md' && format !== 'json') {
    throw new AppError('bad_request:chat', 'Unknown export format: use format=md or format=json');
  }
  const view = await (await storeFor(request)).loadChatView(chatId);
  if (!view) throw notFound('chat', chatId);
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
