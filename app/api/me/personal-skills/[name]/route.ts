/** DELETE /api/me/personal-skills/:name: removes one of the person's own skills (404 when they have none by it). */
import { currentUserId } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';
import { uninstallPersonalSkill } from '@/server/install/personal';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ name: string }> };

export const DELETE = handle(async (request: Request, { params }: Params) => {
  const userId = await currentUserId(request);
  await uninstallPersonalSkill(await getApp(), userId, (await params).name);
  return json({ ok: true });
});
