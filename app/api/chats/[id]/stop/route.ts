import { requireUser } from '@/server/auth/current-user';
import { stopTurnAndWait } from '@/server/chat/active-turns';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

/** The Stop button: aborts the chat's running answer, which is then stored as far as it got. */
export const POST = handle(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const _user = await requireUser(request); // whose chats: the per-person queries take _user.id
  const { id } = await params;
  // Answer once the stopped answer is stored, so the next message is not refused as "still answering".
  const stopped = await stopTurnAndWait(id);
  return json({ stopped });
});
