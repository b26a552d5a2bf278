import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';
import { lookalikeWarning } from '@/server/skills/confusables';
import { userInvocable } from '@/server/skills/modes';

export const dynamic = 'force-dynamic';

/** Slash-menu entries: every skill a person may invoke (not off, not denied), ranked by the matcher for `q`. */
const MAX_RESULTS = 50;

export const GET = handle(async (request: Request) => {
  const q = (new URL(request.url).searchParams.get('q') ?? '').slice(0, 200);
  const { registry, policy } = getApp();
  const modes = await registry.modes();
  const skills = (await registry.current()).skills.filter(
    (s) => userInvocable(modes.get(s.name) ?? 'auto') && policy.resolve(s).permission !== 'deny',
  );
  const byName = new Map(skills.map((s) => [s.name, s]));
  const ordered = q.trim()
    ? (await registry.matcher())
        .rank(q, MAX_RESULTS * 2)
        .flatMap((r) => (byName.has(r.name) ? [byName.get(r.name)!] : []))
    : skills;
  return json({
    skills: ordered
      .slice(0, MAX_RESULTS)
      .map((s) => ({ name: s.name, description: s.description, ...lookalikeWarning(s) })),
  });
});
