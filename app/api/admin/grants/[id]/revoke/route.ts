/**
 * POST /api/admin/grants/:id/revoke: withdraws an "always allow"; the skill asks again on its next activation. The
 * grant row stays (with its revocation time) as a record. A write, so the proxy has already required `Origin`.
 */

import { requireAdmin } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { revokeGrant } from '@/server/db';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ id: string }> };

export const POST = handle(async (request: Request, { params }: Params) => {
  await requireAdmin(request);
  const { id } = await params;
  if (!/^[1-9]\d{0,15}$/.test(id)) throw new AppError('bad_request:grant', `Invalid grant id: ${id.slice(0, 40)}`);
  const grantId = Number(id);
  if (!(await revokeGrant(grantId, new Date(), (await getApp()).db))) {
    throw new AppError('not_found:grant', `No active grant ${grantId}: it does not exist or was already revoked`);
  }
  return json({ revoked: true, id: grantId });
});
