import { requireUser } from '@/app/_lib/current-user';
import { personalAccess } from '@/server/access/personal';
import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';
import { skillsForPerson } from '@/server/install/personal';
import { lookalikeWarning } from '@/server/skills/discovery/confusables';
import { argumentHint } from '@/server/skills/load/arguments';
import type { Skill } from '@/server/skills/types';

export const dynamic = 'force-dynamic';

/** Slash-menu entries: every skill the person asking may invoke (their access record says so), ranked by the matcher for `q`. */
const MAX_RESULTS = 50;

export const GET = handle(async (request: Request) => {
  const user = await requireUser(request);
  const q = (new URL(request.url).searchParams.get('q') ?? '').slice(0, 200);
  const app = await getApp();
  const { access, db } = app;
  // The shared skills and the person's own (server/install/personal.ts).
  const { skills: all, matcher, personal } = await skillsForPerson(app, user.id);
  const find = async (name: string) => personal.find((s) => s.name === name) ?? (await app.registry.get(name));
  // The person's own switched-off skills are left out too (server/access/personal.ts).
  const records = access.resolveAll(all, await personalAccess(db, user.id));
  const invocable = (s: Skill | undefined): s is Skill => !!s && records.get(s.name)?.personMayInvoke === true;
  // The first MAX_RESULTS, without a pass (or a map) over every skill on each keystroke.
  const shown: Skill[] = [];
  if (q.trim()) {
    for (const { name } of matcher.rank(q, MAX_RESULTS * 2)) {
      const skill = await find(name);
      if (invocable(skill) && shown.push(skill) >= MAX_RESULTS) break;
    }
  } else {
    for (const skill of all) if (invocable(skill) && shown.push(skill) >= MAX_RESULTS) break;
  }
  return json({
    skills: shown.map((s) => {
      const hint = argumentHint(s);
      return {
        name: s.name,
        description: s.description,
        ...(hint ? { argumentHint: hint } : {}),
        ...lookalikeWarning(s),
      };
    }),
  });
});
