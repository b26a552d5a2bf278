/** DELETE /api/me/tokens/:id: revokes one of the person's tokens, at once. */

import { currentUserId } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { revokeToken } from '@/server/auth/personal-tokens';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

export const DELETE = handle(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const userId = await currentUserId(request);
  await revokeToken((await getApp()).db, userId, (await params).id);
  return json({ revoked: true });
});
