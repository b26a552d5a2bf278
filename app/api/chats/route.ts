import { z } from 'zod';
import { storeFor } from '@/app/_lib/store';
import { chatIdSchema, readJsonBody } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

const createSchema = z
  .object({ id: chatIdSchema.optional(), title: z.string().trim().min(1).max(200).optional() })
  .strict();

/** Longer than anything typed into a search box; the database only uses the first few words anyway. */
const MAX_QUERY_LENGTH = 200;

export const GET = handle(async (request: Request) => {
  const store = await storeFor(request);
  const q = new URL(request.url).searchParams.get('q');
  if (q === null || q.trim() === '') return json({ chats: await store.listChats() });
  if (q.length > MAX_QUERY_LENGTH) {
    throw new AppError('bad_request:chat', `The search is too long (at most ${MAX_QUERY_LENGTH} characters)`);
  }
  return json({ chats: await store.searchChats(q) });
});

export const POST = handle(async (request: Request) => {
  const parsed = createSchema.safeParse(await readJsonBody(request));
  if (!parsed.success) {
    throw new AppError(
      'bad_request:chat',
      `Invalid chat: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')}`,
    );
  }
  const { chat, created } = await (await storeFor(request)).createChat(parsed.data);
  return json({ chat }, { status: created ? 201 : 200 });
});
