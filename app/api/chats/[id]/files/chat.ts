import { getApp } from '@/server/app';
import { chatIdSchema } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { notFound } from '@/server/http';

/** The chat id, validated, for a chat that exists. */
export async function existingChat(params: Promise<{ id: string }>): Promise<string> {
  const { id } = await params;
  const parsed = chatIdSchema.safeParse(id);
  if (!parsed.success) throw new AppError('bad_request:chat', `Invalid chat id: ${parsed.error.issues[0]?.message}`);
  if (!getApp().store.getChat(parsed.data)) throw notFound('chat', parsed.data);
  return parsed.data;
}
