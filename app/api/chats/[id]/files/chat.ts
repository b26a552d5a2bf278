import { storeFor } from '@/app/_lib/store';
import { chatIdFrom } from '@/server/chat/request';
import { notFound } from '@/server/http';

/**
 * The chat id, validated, for a chat that exists and belongs to the person asking: every file route goes through
 * here, so another person's files are a 404 like a missing chat.
 */
export async function existingChat(request: Request, params: Promise<{ id: string }>): Promise<string> {
  const chatId = await chatIdFrom(params);
  if (!(await (await storeFor(request)).getChat(chatId))) throw notFound('chat', chatId);
  return chatId;
}
