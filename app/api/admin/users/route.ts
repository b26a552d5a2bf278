/** GET /api/admin/users: every account. POST: a new one (`{ email, password, role, name? }`). Admins only. */

import { requireAdmin } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { createUserFromBody, listUserRows } from '@/server/auth/admin-api';
import { readJsonBody } from '@/server/chat/request';
import { usageByUser } from '@/server/db/activations';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request: Request) => {
  await requireAdmin(request);
  const app = await getApp();
  return json({ users: await listUserRows(app.auth, await usageByUser(app.db)) });
});

export const POST = handle(async (request: Request) => {
  await requireAdmin(request);
  const user = await createUserFromBody((await getApp()).auth, await readJsonBody(request));
  return json({ user }, { status: 201 });
});
