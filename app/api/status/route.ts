import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  const { models, registry } = await getApp();
  const { skills } = await registry.current();
  const model = models.defaultEntry();
  return json({ model: { label: model.label, kind: model.provider }, skillCount: skills.length });
});
