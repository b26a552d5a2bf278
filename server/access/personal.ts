/**
 * The personal layer of access: the skills a person switched off for themselves, read from the database
 * and handed to the resolver as `AccessOptions` (`person`, `switchedOff`). Modes, permissions and roots stay the
 * operator's; a person can only narrow what the operator leaves them.
 */
import { type Database, listDisabledSkills, setSkillDisabled } from '../db';
import { AppError } from '../errors';
import type { AccessOptions, AccessResolver, AccessSkill } from './resolver';

/** The resolver options for `userId`: their switched-off skills. */
export async function personalAccess(db: Database, userId: string): Promise<AccessOptions> {
  return { person: userId, switchedOff: new Set(await listDisabledSkills(userId, db)) };
}

export interface SkillPref {
  name: string;
  description: string;
  disabled: boolean;
}

type PrefSkill = AccessSkill & { description: string };

/**
 * The skills a person may switch (the ones the operator leaves usable), each with whether they switched it off.
 * Skills the operator turned off or denied are not theirs to switch, so they are not listed.
 */
export async function listSkillPrefs(
  deps: { db: Database; access: Pick<AccessResolver, 'resolveAll'> },
  userId: string,
  skills: readonly PrefSkill[],
): Promise<SkillPref[]> {
  const operator = deps.access.resolveAll(skills);
  const off = new Set(await listDisabledSkills(userId, deps.db));
  return skills
    .filter((s) => operator.get(s.name)?.usable)
    .map((s) => ({ name: s.name, description: s.description, disabled: off.has(s.name) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Switches `name` off (or back on) for `userId`; a 404 `not_found:skill` for a skill that is not loaded. */
export async function setSkillPref(
  db: Database,
  userId: string,
  skill: PrefSkill | undefined,
  name: string,
  disabled: boolean,
): Promise<SkillPref> {
  if (!skill) throw new AppError('not_found:skill', `Skill "${name}" does not exist`);
  await setSkillDisabled(userId, skill.name, disabled, db);
  return { name: skill.name, description: skill.description, disabled };
}
