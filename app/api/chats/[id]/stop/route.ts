import { stopTurn } from '@/server/chat/turn';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

/** The Stop button: aborts the chat's running answer, which is then stored as far as it got. */
export const POST = handle(async (_request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const { id } = await params;
  return json({ stopped: stopTurn(id) });
});
