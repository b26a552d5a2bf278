import { UI_MESSAGE_STREAM_HEADERS } from 'ai';
import { requireUser } from '@/server/auth/current-user';
import { chatIdSchema } from '@/server/chat/request';
import { resumableStreams } from '@/server/chat/resumable';
import { AppError } from '@/server/errors';
import { handle } from '@/server/http';

export const dynamic = 'force-dynamic';

/**
 * Resume: the chat's running answer from its beginning, then live to its end (a reload or a second tab during an
 * answer). 204 when the chat is not answering; the page already shows what is stored.
 */
export const GET = handle(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const _user = await requireUser(request); // whose chats: the per-person queries take _user.id
  const { id } = await params;
  const parsed = chatIdSchema.safeParse(id);
  if (!parsed.success) throw new AppError('bad_request:chat', `Invalid chat id: ${parsed.error.issues[0]?.message}`);
  const stream = resumableStreams().resume(parsed.data);
  if (!stream) return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } });
  return new Response(stream.pipeThrough(new TextEncoderStream()), {
    headers: UI_MESSAGE_STREAM_HEADERS,
  });
});
