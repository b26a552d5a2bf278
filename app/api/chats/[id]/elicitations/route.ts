import { storeFor } from '@/app/_lib/store';
import { getApp } from '@/server/app';
import { replyToElicitation } from '@/server/chat/elicitations';
import { chatIdFrom, readJsonBody } from '@/server/chat/request';
import { handle, json, notFound } from '@/server/http';

export const dynamic = 'force-dynamic';

/**
 * The person's answer to an MCP server's question during a tool call: `{ id, action, values? }`. Ownership is checked
 * before the body is read: another person's chat is a 404 like a missing one.
 */
export const POST = handle(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const id = await chatIdFrom(params);
  const store = await storeFor(request);
  if (!(await store.getChat(id))) throw notFound('chat', id);
  replyToElicitation((await getApp()).turns, id, await readJsonBody(request));
  return json({ answered: true });
});
