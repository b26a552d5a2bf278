import { storeFor } from '@/app/_lib/store';
import { getApp } from '@/server/app';
import { chatIdFrom } from '@/server/chat/request';
import { stopChat } from '@/server/chat/turn/stop';
import { handle, json, notFound } from '@/server/http';

export const dynamic = 'force-dynamic';

/**
 * The Stop button: aborts the chat's running answer, which is then stored as far as it got. When the answer runs on
 * another instance, its lease is flagged and the answer is 202: that instance stops it and stores it as stopped.
 */
export const POST = handle(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const id = await chatIdFrom(params);
  const store = await storeFor(request);
  // Another person's chat is a 404 like a missing one, so ids do not leak; one's own idle chat is `stopped: false`.
  if (!(await store.getChat(id))) throw notFound('chat', id);
  // Answer once the stopped answer is stored, so the next message is not refused as "still answering".
  const outcome = await stopChat(id, { turns: (await getApp()).turns, leases: store.leases });
  if (outcome === 'elsewhere') return json({ stopped: true, elsewhere: true }, { status: 202 });
  return json({ stopped: outcome === 'stopped' });
});
