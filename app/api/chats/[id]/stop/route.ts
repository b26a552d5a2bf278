import { storeFor } from '@/server/app';
import { stopChatTurn } from '@/server/chat/turn-leases';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

/**
 * The Stop button: aborts the chat's running answer, which is then stored as far as it got. When the answer runs on
 * another instance, its lease is flagged and the answer is 202: that instance stops it and stores it as stopped.
 */
export const POST = handle(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const { id } = await params;
  const store = await storeFor(request);
  // Only one's own chat: another person's is the same as a chat that is not answering.
  if (!(await store.getChat(id))) return json({ stopped: false });
  // Answer once the stopped answer is stored, so the next message is not refused as "still answering".
  const outcome = await stopChatTurn(id, store.leases);
  if (outcome === 'elsewhere') return json({ stopped: true, elsewhere: true }, { status: 202 });
  return json({ stopped: outcome === 'stopped' });
});
