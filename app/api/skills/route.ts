import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

/** Skills for the slash menu: name + description only (no paths), ranked by the matcher when `q` is given. */
export const GET = handle(async (request: Request) => {
  const q = (new URL(request.url).searchParams.get('q') ?? '').slice(0, 200);
  const { registry, policy } = getApp();
  // Denied skills are hidden from the menu as they are from the model.
  const skills = (await registry.current()).skills.filter((s) => policy.resolve(s).permission !== 'deny');
  const byName = new Map(skills.map((s) => [s.name, s]));
  const ordered = q.trim()
    ? (await registry.matcher()).rank(q, 50).flatMap((r) => (byName.has(r.name) ? [byName.get(r.name)!] : []))
    : skills;
  return json({ skills: ordered.map((s) => ({ name: s.name, description: s.description })) });
});
