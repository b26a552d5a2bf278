/** For tests that need loaded skills without files: a `Skill` as discovery gives it, for a folder under `root`. */
import path from 'node:path';
import v8 from 'node:v8';
import { DEFAULT_LIMITS } from '../limits';
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

/**
 * V8's own view of a string or object, for tests that check what memory a structure keeps: a string of 13 characters
 * or more cut out of a longer one is a slice that keeps the whole longer string alive, and an object may be kept as
 * a hash table rather than with fast properties. Each has its own map (the hidden class V8 gives every heap object),
 * compared through V8's natives syntax.
 */
export function v8Shapes(): { isSlice(text: string): boolean; hasFastProperties(object: object): boolean } {
  v8.setFlagsFromString('--allow-natives-syntax');
  const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: unknown, b: unknown) => boolean;
  const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;
  // One-byte and two-byte slices have different maps.
  const slices = [`${'x'.repeat(40)}${'y'.repeat(20)}`.slice(40), `${'\u0100'.repeat(40)}${'y'.repeat(20)}`.slice(40)];
  return { isSlice: (text) => slices.some((slice) => sameMap(text, slice)), hasFastProperties };
}
