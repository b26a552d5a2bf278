/**
 * GET /api/admin/egress/export?person=&skill=&host=&allowed=yes|no: the egress record under those filters as a JSON
 * download (newest first). Admins only; a bad or repeated filter is 400 `bad_request:egress`.
 */

import { requireAdmin } from '@/app/_lib/current-user';
import { loadEgressExport, parseEgressQuery } from '@/server/admin/network';
import { getApp } from '@/server/app';
import { listUserRows } from '@/server/auth/admin-api';
import { handle } from '@/server/http';
import { getExposurePolicy } from '@/server/security/exposure-policy';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request: Request) => {
  await requireAdmin(request);
  const filters = parseEgressQuery(new URL(request.url).searchParams);
  const app = await getApp();
  // People by email on a server with accounts; the loopback person has none.
  const people = getExposurePolicy().exposed
    ? new Map((await listUserRows(app.auth)).map((u) => [u.id, u.email]))
    : new Map<string, string>();
  const document = await loadEgressExport(app, filters, people);
  const stamp = document.exportedAt.replace(/[:.]/g, '-');
  return new Response(JSON.stringify(document, null, 2), {
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'content-disposition': `attachment; filename="egress-${stamp}.json"`,
      'cache-control': 'no-store',
    },
  });
});
