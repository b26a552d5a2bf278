/** Per-skill modes set on /admin. The registry applies them over the config's globs. */
import { eq } from 'drizzle-orm';
import type { SkillMode } from '../config';
import type { Db } from './client';
import { skillModes } from './schema';

export function listModeOverrides(db: Db): Map<string, SkillMode> {
  return new Map(
    db
      .select()
      .from(skillModes)
      .all()
      .map((r) => [r.skillName, r.mode]),
  );
}

/** Sets a skill's mode, or with null goes back to the config's rule. */
export function setModeOverride(skillName: string, mode: SkillMode | null, db: Db): void {
  if (mode === null) {
    db.delete(skillModes).where(eq(skillModes.skillName, skillName)).run();
    return;
  }
  db.insert(skillModes)
    .values({ skillName, mode, updatedAt: new Date() })
    .onConflictDoUpdate({ target: skillModes.skillName, set: { mode, updatedAt: new Date() } })
    .run();
}
