/** GET /api/admin/overview: the admin page's data as JSON (paths relative to the app folder or `~`). */

import { requireAdmin } from '@/app/_lib/current-user';
import { loadAdminOverview } from '@/server/admin/overview';
import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request: Request) => {
  await requireAdmin(request);
  return json(await loadAdminOverview(await getApp()));
});
