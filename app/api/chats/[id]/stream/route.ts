import { UI_MESSAGE_STREAM_HEADERS } from 'ai';
import { storeFor } from '@/app/_lib/store';
import { getApp } from '@/server/app';
import { chatIdFrom } from '@/server/chat/request';
import { handle, notFound } from '@/server/http';

export const dynamic = 'force-dynamic';

/**
 * Resume: the chat's running answer from its beginning, then live to its end (a reload or a second tab during an
 * answer). 204 when the chat is not answering; the page already shows what is stored. Another person's chat is a 404
 * like a missing one (a 204 would tell a stranger the id exists).
 */
export const GET = handle(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const chatId = await chatIdFrom(params);
  if (!(await (await storeFor(request)).getChat(chatId))) throw notFound('chat', chatId);
  const stream = (await getApp()).turns.streams.resume(chatId);
  if (!stream) return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } });
  return new Response(stream.pipeThrough(new TextEncoderStream()), {
    headers: UI_MESSAGE_STREAM_HEADERS,
  });
});
