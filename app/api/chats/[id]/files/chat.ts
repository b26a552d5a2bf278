import { storeFor } from '@/app/_lib/store';
import { chatIdFrom } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { notFound } from '@/server/http';
import { safeRelativePath } from '@/server/workspace/file-names';

/**
 * The chat id, validated, for a chat that exists and belongs to the person asking: every file route goes through
 * here, so another person's files are a 404 like a missing chat.
 */
export async function existingChat(request: Request, params: Promise<{ id: string }>): Promise<string> {
  const chatId = await chatIdFrom(params);
  if (!(await (await storeFor(request)).getChat(chatId))) throw notFound('chat', chatId);
  return chatId;
}

/** The file's path from a catch-all route's segments (`folder/name`), refused unless it is a safe relative path. */
export function filePathFrom(segments: string[]): string {
  const name = safeRelativePath(segments.join('/'));
  if (name === null) throw new AppError('bad_request:file', 'Invalid file path');
  return name;
}
