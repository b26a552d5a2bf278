/** Per-skill modes set on /admin. The registry applies them over the config's globs. */
import { eq } from 'drizzle-orm';
import type { SkillMode } from '../config';
import { type Database, withDb } from './client';

export async function listModeOverrides(d: Database): Promise<Map<string, SkillMode>> {
  const rows = await withDb(d, (db) => db.select().from(d.t.skillModes));
  return new Map(rows.map((r) => [r.skillName, r.mode as SkillMode]));
}

/** Sets a skill's mode, or with null goes back to the config's rule. One statement either way (ON CONFLICT). */
export async function setModeOverride(skillName: string, mode: SkillMode | null, d: Database): Promise<void> {
  const { skillModes } = d.t;
  if (mode === null) {
    await withDb(d, (db) => db.delete(skillModes).where(eq(skillModes.skillName, skillName)));
    return;
  }
  await withDb(d, (db) =>
    db
      .insert(skillModes)
      .values({ skillName, mode, updatedAt: new Date() })
      .onConflictDoUpdate({ target: skillModes.skillName, set: { mode, updatedAt: new Date() } }),
  );
}
