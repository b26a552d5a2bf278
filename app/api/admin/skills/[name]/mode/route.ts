/** POST /api/admin/skills/:name/mode `{ mode }`: sets a skill's mode over the config (null goes back to it). */
import { z } from 'zod';
import { requireAdmin } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { readJsonBody } from '@/server/chat/request';
import { SKILL_MODES } from '@/server/config';
import { setModeOverride } from '@/server/db';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ mode: z.enum(SKILL_MODES).nullable() }).strict();

export const POST = handle(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireAdmin(request);
  const { name } = await params;
  const parsed = bodySchema.safeParse(await readJsonBody(request));
  if (!parsed.success) {
    throw new AppError('bad_request:mode', `mode must be one of ${SKILL_MODES.join(', ')}, or null`);
  }
  const app = await getApp();
  const skill = await app.registry.get(name);
  if (!skill) throw new AppError('not_found:skill', `Skill "${name}" does not exist`);
  await setModeOverride(name, parsed.data.mode, app.db);
  app.access.setModeOverride(name, parsed.data.mode);
  return json({ name, mode: app.access.resolve(skill).mode.mode });
});
