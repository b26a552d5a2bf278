import { UI_MESSAGE_STREAM_HEADERS } from 'ai';
import { storeFor } from '@/server/app';
import { chatIdFrom } from '@/server/chat/request';
import { resumableStreams } from '@/server/chat/resumable';
import { handle } from '@/server/http';

export const dynamic = 'force-dynamic';

/**
 * Resume: the chat's running answer from its beginning, then live to its end (a reload or a second tab during an
 * answer). 204 when the chat is not answering; the page already shows what is stored.
 */
export const GET = handle(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const chatId = await chatIdFrom(params);
  // Another person's chat: the same as a chat that is not answering.
  const owned = (await (await storeFor(request)).getChat(chatId)) !== null;
  const stream = owned ? resumableStreams().resume(chatId) : null;
  if (!stream) return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } });
  return new Response(stream.pipeThrough(new TextEncoderStream()), {
    headers: UI_MESSAGE_STREAM_HEADERS,
  });
});
