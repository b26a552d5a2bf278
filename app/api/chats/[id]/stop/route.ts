import { storeFor } from '@/server/app';
import { stopTurnAndWait } from '@/server/chat/active-turns';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

/** The Stop button: aborts the chat's running answer, which is then stored as far as it got. */
export const POST = handle(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const { id } = await params;
  // Only one's own chat: another person's is the same as a chat that is not answering.
  if (!(await (await storeFor(request)).getChat(id))) return json({ stopped: false });
  // Answer once the stopped answer is stored, so the next message is not refused as "still answering".
  const stopped = await stopTurnAndWait(id);
  return json({ stopped });
});
