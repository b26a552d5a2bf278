/** PUT /api/me/skills/:name `{ disabled }`: switches a skill off (or back on) for the person asking. */
import { z } from 'zod';
import { currentUserId } from '@/app/_lib/current-user';
import { setSkillPref } from '@/server/access/personal';
import { getApp } from '@/server/app';
import { readJsonBody } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';
import { skillsForPerson } from '@/server/install/personal';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ disabled: z.boolean() }).strict();

export const PUT = handle(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  const userId = await currentUserId(request);
  const { name } = await params;
  const parsed = bodySchema.safeParse(await readJsonBody(request));
  if (!parsed.success) throw new AppError('bad_request:skill_pref', 'The body must be { "disabled": true | false }');
  const app = await getApp();
  const skill = (await skillsForPerson(app, userId)).skills.find((s) => s.name === name);
  return json(await setSkillPref(app.db, userId, skill, name, parsed.data.disabled));
});
