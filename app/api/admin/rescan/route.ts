/** POST /api/admin/rescan: scans the skill roots again and reports when and how long it took. */
import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';
import { guardAdminRequest } from '@/server/security/guard';
import { isProblem } from '@/server/skills/diagnostics';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request: Request) => {
  const denied = guardAdminRequest(request);
  if (denied) return denied;
  const scan = await (await getApp()).registry.rescan();
  return json({
    scannedAt: scan.scannedAt,
    durationMs: scan.durationMs,
    skillCount: scan.skills.length,
    problemCount: scan.diagnostics.filter(isProblem).length,
  });
});
