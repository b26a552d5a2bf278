/**
 * Where a person's own skills live: `<install root's parent>/personal-skills/<user id>`, beside the operator's
 * install root and never inside a skill root, so no shared scan reads them. The folder is named by the account's id
 * only (never a name a request sends), and an id that is not a plain token is refused rather than joined into a path.
 */
import path from 'node:path';
import { isInside } from '../paths';

export const PERSONAL_SKILLS_DIR = 'personal-skills';

/** better-auth ids and the loopback person's id are plain tokens; anything else is not ours to turn into a folder. */
const USER_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Whether `userId` can name a folder (every account's id can). */
export function isPlainUserId(userId: string): boolean {
  return USER_ID.test(userId);
}

/** The folder every person's skills are under. */
export function personalSkillsBase(installRoot: string): string {
  return path.join(path.dirname(path.resolve(/*turbopackIgnore: true*/ installRoot)), PERSONAL_SKILLS_DIR);
}

/** One person's folder; throws for an id that is not a plain token (a bug, not a request to answer). */
export function personalSkillsRoot(installRoot: string, userId: string): string {
  if (!USER_ID.test(userId)) throw new Error('A user id is not a plain token: no personal skills folder for it');
  return path.join(personalSkillsBase(installRoot), userId);
}

/** Whether a skill's root is a person's folder (the permission's source is then `personal`). */
export function isPersonalSkillRoot(installRoot: string, root: string): boolean {
  const base = personalSkillsBase(installRoot);
  return isInside(base, root) && path.resolve(/*turbopackIgnore: true*/ root) !== base;
}
