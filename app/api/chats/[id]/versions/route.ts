import { storeFor } from '@/app/_lib/store';
import { getApp } from '@/server/app';
import { chatIdFrom, readJsonBody } from '@/server/chat/request';
import { switchChatVersion } from '@/server/chat/versions';
import { handle, json, notFound } from '@/server/http';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ id: string }> };

/** The chat's groups of versions: `{ versions: [{ parentId, index, count }] }`. */
export const GET = handle(async (request: Request, { params }: Params) => {
  const id = await chatIdFrom(params);
  const store = await storeFor(request);
  if (!(await store.getChat(id))) throw notFound('chat', id);
  return json({ versions: await store.listVersions(id) });
});

/**
 * Shows another version: `{ parentId, version }` -> the chat's messages and versions after the switch. Ownership is
 * checked before the body is read, so another person's chat is a 404 whatever is sent (a 400 would confirm the id).
 */
export const POST = handle(async (request: Request, { params }: Params) => {
  const id = await chatIdFrom(params);
  const store = await storeFor(request);
  if (!(await store.getChat(id))) throw notFound('chat', id);
  return json(await switchChatVersion(store, (await getApp()).turns, id, await readJsonBody(request)));
});
