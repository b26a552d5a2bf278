/** For tests that need loaded skills without files: a `Skill` as discovery gives it, for a folder under `root`. */
import path from 'node:path';
import { DEFAULT_LIMITS } from '../config';
import { loadSkill } from './load/skill-file';
import type { Skill } from './types';

export function skillRecord(name: string, root: string, extra: Partial<Skill> = {}): Skill {
  return {
    name,
    description: `Does ${name} things.`,
    dir: `${root}/${name}`,
    file: `${root}/${name}/SKILL.md`,
    root,
    relDir: name,
    scope: 'project',
    frontmatter: { name, description: `Does ${name} things.` },
    size: 100,
    mtimeMs: 0,
    diagnostics: [],
    ...extra,
  };
}

/**
 * Every character that must never reach the model from a skill (tag, bidi, zero-width), written out independently
 * of hidden-text.ts so the entry points' tests do not trust the function they check. The fixture has no joiner
 * that stands between letters, so none is exempt there.
 */
export const HIDDEN_CHARACTER =
  /[\u{E0000}-\u{E007F}\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u200B-\u200D\u2060-\u2064\uFEFF]/u;

/** `fixtures/hidden-text/tag-description`, loaded as discovery loads it (with its `hidden-text` warning). */
export async function hiddenTextSkill(): Promise<Skill> {
  const root = path.join(import.meta.dirname, 'fixtures', 'hidden-text');
  const { skill } = await loadSkill(path.join(root, 'tag-description'), {
    root,
    scope: 'project',
    relDir: 'tag-description',
    limits: DEFAULT_LIMITS,
  });
  if (!skill) throw new Error('fixtures/hidden-text/tag-description did not load');
  return skill;
}
