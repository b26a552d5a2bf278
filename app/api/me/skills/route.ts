/** GET /api/me/skills: the skills the person may switch, each with whether they switched it off. */

import { currentUserId } from '@/app/_lib/current-user';
import { listSkillPrefs } from '@/server/access/personal';
import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';
import { skillsForPerson } from '@/server/install/personal';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request: Request) => {
  const userId = await currentUserId(request);
  const app = await getApp();
  const { skills } = await skillsForPerson(app, userId);
  return json({ skills: await listSkillPrefs(app, userId, skills) });
});
