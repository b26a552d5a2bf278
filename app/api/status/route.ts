import { currentUser } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

/** Public for health checks: without a session (on an exposed server) it only says the server is up. */
export const GET = handle(async (request: Request) => {
  if (!(await currentUser(request))) return json({ ok: true });
  const { models, registry } = await getApp();
  const { skills } = await registry.current();
  const model = models.defaultEntry();
  return json({ ok: true, model: { label: model.label, kind: model.provider }, skillCount: skills.length });
});
