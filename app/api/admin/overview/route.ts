/** GET /api/admin/overview: the admin page's data as JSON (paths relative to the app folder or `~`). */
import { loadAdminOverview } from '@/server/admin/overview';
import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';
import { guardAdminRequest } from '@/server/security/guard';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request: Request) => {
  const denied = guardAdminRequest(request);
  if (denied) return denied;
  return json(await loadAdminOverview(await getApp()));
});
