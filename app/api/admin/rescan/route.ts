/** POST /api/admin/rescan: scans the skill roots again and reports when and how long it took. */

import { requireAdmin } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';
import { isProblem } from '@/server/skills/load/diagnostics';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request: Request) => {
  await requireAdmin(request);
  const scan = await (await getApp()).registry.rescan();
  return json({
    scannedAt: scan.scannedAt,
    durationMs: scan.durationMs,
    skillCount: scan.skills.length,
    problemCount: scan.diagnostics.filter(isProblem).length,
  });
});
