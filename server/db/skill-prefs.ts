/** Skills a person switched off for themselves. Operator settings (modes, permissions) live elsewhere. */
import { and, eq } from 'drizzle-orm';
import { type Database, withDb } from './client';

/** The names of the skills `userId` switched off, sorted. */
export async function listDisabledSkills(userId: string, d: Database): Promise<string[]> {
  const { userSkillPrefs: p } = d.t;
  const rows = await withDb(d, (db) =>
    db
      .select({ skillName: p.skillName })
      .from(p)
      .where(and(eq(p.userId, userId), eq(p.disabled, true))),
  );
  return rows.map((r) => r.skillName).sort();
}

/** Switches a skill off (or back on) for one person. One statement (ON CONFLICT); other people are untouched. */
export async function setSkillDisabled(
  userId: string,
  skillName: string,
  disabled: boolean,
  d: Database,
): Promise<void> {
  const { userSkillPrefs: p } = d.t;
  const updatedAt = new Date();
  await withDb(d, (db) =>
    db
      .insert(p)
      .values({ userId, skillName, disabled, updatedAt })
      .onConflictDoUpdate({ target: [p.userId, p.skillName], set: { disabled, updatedAt } }),
  );
}
