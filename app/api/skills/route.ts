import { requireUser } from '@/app/_lib/current-user';
import { personalAccess } from '@/server/access/personal';
import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';
import { lookalikeWarning } from '@/server/skills/discovery/confusables';
import { argumentHint } from '@/server/skills/load/arguments';

export const dynamic = 'force-dynamic';

/** Slash-menu entries: every skill the person asking may invoke (their access record says so), ranked by the matcher for `q`. */
const MAX_RESULTS = 50;

export const GET = handle(async (request: Request) => {
  const user = await requireUser(request);
  const q = (new URL(request.url).searchParams.get('q') ?? '').slice(0, 200);
  const { registry, access, db } = await getApp();
  const all = (await registry.current()).skills;
  // The person's own switched-off skills are left out too (server/access/personal.ts).
  const records = access.resolveAll(all, await personalAccess(db, user.id));
  const skills = all.filter((s) => records.get(s.name)?.personMayInvoke);
  const byName = new Map(skills.map((s) => [s.name, s]));
  const ordered = q.trim()
    ? (await registry.matcher())
        .rank(q, MAX_RESULTS * 2)
        .flatMap((r) => (byName.has(r.name) ? [byName.get(r.name)!] : []))
    : skills;
  return json({
    skills: ordered.slice(0, MAX_RESULTS).map((s) => {
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
