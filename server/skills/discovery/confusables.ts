/**
 * Lookalike skill names: a folder named `cоmmit-message` (Cyrillic `о`) beside the real `commit-message`, or `pr0be`
 * (a zero) beside `probe`, would look the same in the slash menu. Two checks from Unicode UTS #39:
 * - confusable: two loaded names with the same key but different text. The key is the UTS #39 skeleton (NFD, then
 *   confusables.txt's mapping via `unhomoglyph`, then NFD again), which already makes `m` look like `rn` and `1`
 *   like `l`, folded further for the ASCII swaps confusables.txt leaves apart (`lookalikeKey`);
 * - mixed script: one name mixing letters of scripts people do not mix (Latin with Cyrillic, say). Han with
 *   Hiragana/Katakana (Japanese), Hangul or Bopomofo is a normal mix.
 * Both are warnings on the skill (`confusable-name`, `mixed-script-name`): the skill still loads, and /admin and the
 * slash menu show why it looks suspicious.
 */
import unhomoglyph from 'unhomoglyph';
import type { Diagnostic, Skill } from '../types';

/**
 * Skeletons by name: unhomoglyph's one big regex runs once per name, which thousands of skills pay on every rescan
 * that changed anything; names rarely change. Cleared when it grows past any real collection.
 */
const skeletons = new Map<string, string>();
const MAX_CACHED = 100_000;

/** UTS #39 skeleton: strings that look alike have the same skeleton. */
export function skeleton(text: string): string {
  let key = skeletons.get(text);
  if (key === undefined) {
    if (skeletons.size >= MAX_CACHED) skeletons.clear();
    key = unhomoglyph(text.normalize('NFD')).normalize('NFD');
    skeletons.set(text, key);
  }
  return key;
}

/**
 * The swaps people make in ASCII names, on top of the skeleton: `0`/`o` (the skeleton maps `0` to `O`, apart from
 * `o`), `5`/`s` and `vv`/`w`. Deliberately left out, to keep warnings for names that are really different:
 * - `i` against `l`/`1`: the dot tells them apart in lowercase, and real words differ by just that (mail/mall,
 *   fail/fall), so `tool-vi` and `tool-v1` are not flagged; `l` and `1` are (the skeleton's own mapping);
 * - other digits (`2`/`z`, `3`/`e`, `8`/`b`): `v2`, `s3`, `k8s` are names, not disguises; digits that are not
 *   swapped for a letter never matter, so `api-v1` and `api-v2` stay two names;
 * - `cl`/`d`, `nn`/`m`: they would join ordinary words (`clone`/`done`).
 * Names are lowercase (the validator requires it), so folding case only merges what the skeleton upper-cased.
 */
export function lookalikeKey(text: string): string {
  return skeleton(text).toLowerCase().replace(/0/g, 'o').replace(/5/g, 's').replace(/vv/g, 'w');
}

/** Scripts named in messages; a letter of any other script is reported as "other". */
const SCRIPTS = [
  'Latin',
  'Cyrillic',
  'Greek',
  'Armenian',
  'Georgian',
  'Cherokee',
  'Hebrew',
  'Arabic',
  'Devanagari',
  'Thai',
  'Coptic',
  'Lisu',
  'Canadian_Aboriginal',
  'Tifinagh',
  'Vai',
  'Han',
  'Hiragana',
  'Katakana',
  'Hangul',
  'Bopomofo',
] as const;
const SCRIPT_RES = SCRIPTS.map((name) => ({ name, re: new RegExp(`^\\p{Script=${name}}$`, 'u') }));
/** Characters that belong to no script in particular (digits, `-`, combining marks) never make a mix. */
const NEUTRAL = /^[\p{Script=Common}\p{Script=Inherited}]$/u;
const ASCII = /^[\x00-\x7f]*$/;
const CJK = new Set(['Han', 'Hiragana', 'Katakana', 'Hangul', 'Bopomofo']);

function scriptOf(char: string): string | null {
  if (NEUTRAL.test(char)) return null;
  return SCRIPT_RES.find(({ re }) => re.test(char))?.name ?? 'other';
}

/** The scripts of a name's letters, in order of first appearance. */
export function scriptsOf(text: string): string[] {
  const out = new Set<string>();
  for (const char of text.normalize('NFC')) {
    const script = scriptOf(char);
    if (script) out.add(script);
  }
  return [...out];
}

/** Whether a name mixes scripts (Han with one of Hiragana, Katakana, Hangul or Bopomofo is not a mix). */
export function isMixedScript(text: string): boolean {
  if (ASCII.test(text)) return false;
  const scripts = scriptsOf(text);
  if (scripts.length < 2) return false;
  return !scripts.every((s) => CJK.has(s));
}

/** `U+043E (Cyrillic)`, `U+0030 (digit)`: how a character is told apart from its lookalike. */
function describeChar(char: string): string {
  const code = char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  const kind = /^\p{Nd}$/u.test(char) ? 'digit' : (scriptOf(char) ?? 'Common').replace(/_/g, ' ');
  return `U+${code} (${kind})`;
}

/** The characters where two same-length names differ, each side described; empty when the lengths differ. */
function differences(text: string, other: string): { ours: string[]; theirs: string[] } {
  const a = [...text];
  const b = [...other];
  const ours: string[] = [];
  const theirs: string[] = [];
  if (a.length !== b.length) return { ours, theirs };
  a.forEach((char, i) => {
    if (char === b[i]) return;
    ours.push(describeChar(char));
    theirs.push(describeChar(b[i]!));
  });
  return { ours, theirs };
}

/**
 * The lookalike warnings for a set of loaded skills, by skill name. Messages name skills only, never paths: the
 * slash menu shows them to anyone.
 */
export function lookalikeDiagnostics(skills: readonly Skill[]): Map<string, Diagnostic[]> {
  const keys = skills.map((s) => lookalikeKey(s.name));
  const bySkeleton = new Map<string, string[]>();
  keys.forEach((key, i) => {
    const names = bySkeleton.get(key);
    if (names) names.push(skills[i]!.name);
    else bySkeleton.set(key, [skills[i]!.name]);
  });
  const out = new Map<string, Diagnostic[]>();
  const add = (skill: Skill, d: Omit<Diagnostic, 'skillDir' | 'root'>) =>
    out.set(skill.name, [...(out.get(skill.name) ?? []), { ...d, skillDir: skill.dir, root: skill.root }]);
  skills.forEach((skill, i) => {
    const others = bySkeleton.get(keys[i]!)!.filter((n) => n !== skill.name);
    for (const other of others) {
      const { ours, theirs } = differences(skill.name, other);
      add(skill, {
        severity: 'warning',
        code: 'confusable-name',
        // The two names look the same on screen, so the message says where they differ.
        message:
          `Another skill, '${other}', looks the same` +
          (ours.length ? `: it has ${theirs.join(', ')} where this name has ${ours.join(', ')}` : '') +
          '; make sure you pick the one you mean.',
        hint: 'Rename or remove the lookalike; one of the two may be an impersonation.',
      });
    }
    if (isMixedScript(skill.name)) {
      add(skill, {
        severity: 'warning',
        code: 'mixed-script-name',
        message: `The name '${skill.name}' mixes ${scriptsOf(skill.name).join(' and ')} letters, which look alike.`,
        hint: 'Spell the name (folder and `name`) in one script; a lookalike letter can impersonate another skill.',
      });
    }
  });
  return out;
}

const LOOKALIKE_CODES = new Set(['confusable-name', 'mixed-script-name']);

/** For the slash menu: `{ warning }` when the skill's name looks like another's (messages name no paths). */
export function lookalikeWarning(skill: Pick<Skill, 'diagnostics'>): { warning?: string } {
  const messages = skill.diagnostics.filter((d) => LOOKALIKE_CODES.has(d.code)).map((d) => d.message);
  return messages.length ? { warning: messages.join(' ') } : {};
}
