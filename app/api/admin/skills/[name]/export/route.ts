/** GET /api/admin/skills/:name/export: the loaded skill as a `.skill` archive (zip), regular files only. */

import { requireAdmin } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { handle, notFound } from '@/server/http';
import { exportForAdmin } from '@/server/install/admin';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireAdmin(request);
  const { name } = await params;
  const zip = await exportForAdmin(await getApp(), name);
  if (!zip) throw notFound('skill', name);
  return new Response(new Uint8Array(zip), {
    headers: {
      'content-type': 'application/zip',
      'content-disposition': `attachment; filename="${encodeURIComponent(name)}.skill"`,
      'cache-control': 'no-store',
    },
  });
});
