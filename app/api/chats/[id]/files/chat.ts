import { storeFor } from '@/server/app';
import { chatIdSchema } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { notFound } from '@/server/http';

/**
 * The chat id, validated, for a chat that exists and belongs to the person asking: every file route goes through
 * here, so another person's files are a 404 like a missing chat.
 */
export async function existingChat(request: Request, params: Promise<{ id: string }>): Promise<string> {
  const { id } = await params;
  const parsed = chatIdSchema.safeParse(id);
  if (!parsed.success) throw new AppError('bad_request:chat', `Invalid chat id: ${parsed.error.issues[0]?.message}`);
  if (!(await (await storeFor(request)).getChat(parsed.data))) throw notFound('chat', parsed.data);
  return parsed.data;
}
