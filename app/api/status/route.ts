import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async () => {
  const { model, registry } = getApp();
  const { skills } = await registry.current();
  return json({ model: { label: model.label, kind: model.kind }, skillCount: skills.length });
});
