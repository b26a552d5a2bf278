/** DELETE /api/me/grants/:id: revokes one of the person's standing grants ("Always allow" on a command's card). */

import { currentUserId } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { revokeStandingGrant } from '@/server/consent/standing';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

export const DELETE = handle(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const userId = await currentUserId(request);
  await revokeStandingGrant((await getApp()).db, userId, (await params).id);
  return json({ revoked: true });
});
