/**
 * What a person switched off for themselves: skills, MCP servers (a subject's kind and key, see `StoredSubject`).
 * Operator settings (modes, permissions) live elsewhere.
 */
import { and, eq } from 'drizzle-orm';
import { type Database, withDb } from './client';
import type { StoredSubject } from './permissions';

/** The keys of the subjects of `kind` that `userId` switched off, sorted. */
export async function listSwitchedOff(userId: string, kind: string, d: Database): Promise<string[]> {
  const { userSkillPrefs: p } = d.t;
  const rows = await withDb(d, (db) =>
    db
      .select({ subject: p.subject })
      .from(p)
      .where(and(eq(p.userId, userId), eq(p.subjectKind, kind), eq(p.disabled, true))),
  );
  return rows.map((r) => r.subject).sort();
}

/** Switches a subject off (or back on) for one person. One statement (ON CONFLICT); other people are untouched. */
export async function setSwitchedOff(
  userId: string,
  subject: StoredSubject,
  disabled: boolean,
  d: Database,
): Promise<void> {
  const { userSkillPrefs: p } = d.t;
  const updatedAt = new Date();
  await withDb(d, (db) =>
    db
      .insert(p)
      .values({ userId, subjectKind: subject.kind, subject: subject.key, disabled, updatedAt })
      .onConflictDoUpdate({ target: [p.userId, p.subjectKind, p.subject], set: { disabled, updatedAt } }),
  );
}

/** The skills `userId` switched off, sorted. */
export function listDisabledSkills(userId: string, d: Database): Promise<string[]> {
  return listSwitchedOff(userId, 'skill', d);
}

/** Switches a skill off (or back on) for one person. */
export function setSkillDisabled(userId: string, skillName: string, disabled: boolean, d: Database): Promise<void> {
  return setSwitchedOff(userId, { kind: 'skill', key: skillName }, disabled, d);
}
