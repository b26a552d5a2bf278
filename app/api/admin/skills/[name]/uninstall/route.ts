/** POST /api/admin/skills/:name/uninstall: removes a skill from the install root (others are not ours to delete). */

import { requireAdmin } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';
import { installErrorResponse, uninstallForAdmin } from '@/server/install/admin';
import { InstallError } from '@/server/install/problems';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireAdmin(request);
  const { name } = await params;
  const app = await getApp();
  try {
    await uninstallForAdmin(app, name);
  } catch (error) {
    if (error instanceof InstallError) return installErrorResponse(error, app);
    throw error;
  }
  return json({ name });
});
