/**
 * skills-ref's metadata rules (`validator.py`), with its exact messages, as `Diagnostic`s.
 *
 * Python semantics are reproduced where they show: `str.strip()` whitespace, `len()` in code points, `sorted()`
 * by code point, `str.isalnum()` as Unicode letters/digits, NFKC before the name checks.
 */

import type { Diagnostic } from '../types';
import type { DiagnosticCode } from './diagnostics';

export const MAX_SKILL_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 1024;
export const MAX_COMPATIBILITY_LENGTH = 500;

export const ALLOWED_FIELDS = ['name', 'description', 'license', 'allowed-tools', 'metadata', 'compatibility'] as const;

/** Python's `str(sorted(ALLOWED_FIELDS))`, as skills-ref prints it. */
const ALLOWED_FIELDS_REPR = `[${[...ALLOWED_FIELDS]
  .sort(compareCodePoints)
  .map((f) => `'${f}'`)
  .join(', ')}]`;

/**
 * Python's `str.isspace()` set: U+0009-U+000D, U+001C-U+0020, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028,
 * U+2029, U+202F, U+205F, U+3000. JS `trim()` differs: it strips U+FEFF and keeps U+001C-U+001F and U+0085.
 */
export function isPySpace(code: number): boolean {
  if (code <= 0x20) return code >= 0x1c || (code >= 0x09 && code <= 0x0d);
  if (code < 0x85) return false;
  if (code <= 0xa0) return code === 0x85 || code === 0xa0;
  if (code < 0x1680) return false;
  return (
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

/**
 * Python's `str.strip()`. A loop over the ends rather than a regex: a trailing-space pattern is tried at every
 * position of the text, where the loop looks only at the ends.
 */
export function pyStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isPySpace(text.charCodeAt(start))) start++;
  while (end > start && isPySpace(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** Python's `len(str)`: code points, not UTF-16 units (a surrogate pair is one). */
export function codePointLength(text: string): number {
  // Indexed, not `for...of`: the string iterator was most of validating a description.
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** Python's string ordering: by code point (JS `<` compares UTF-16 units, which differs above U+FFFF). */
export function compareCodePoints(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const diff = (left[i]?.codePointAt(0) ?? 0) - (right[i]?.codePointAt(0) ?? 0);
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}

/** Trimmed and NFKC-normalised, as skills-ref compares names. */
export function normalizeSkillName(name: string): string {
  return pyStrip(name).normalize('NFKC');
}

// Python's isalnum(): letters (Lu, Ll, Lt, Lm, Lo) or numeric characters. Marks (Mn, Mc) are not.
const NAME_CHARACTER = /^[\p{L}\p{N}-]$/u;
/** Every code point a NAME_CHARACTER, in one pass (no array of characters per name). */
const NAME_CHARACTERS = /^[\p{L}\p{N}-]*$/u;

/** Whether a (normalised) name passes every name rule above. */
export function isValidSkillName(name: string): boolean {
  return (
    name !== '' &&
    codePointLength(name) <= MAX_SKILL_NAME_LENGTH &&
    name === name.toLowerCase() &&
    !name.startsWith('-') &&
    !name.endsWith('-') &&
    !name.includes('--') &&
    NAME_CHARACTERS.test(name)
  );
}

/**
 * One valid name close to `name`, for hints: lowercase, every other character a hyphen, no doubled or edge hyphens,
 * cut to the limit (`PDF_Text` -> `pdf-text`). `my-skill` when nothing of the name is left.
 */
export function suggestSkillName(name: string): string {
  const lowered = normalizeSkillName(name).toLowerCase().normalize('NFKC');
  const hyphenated = [...lowered]
    .map((c) => (NAME_CHARACTER.test(c) ? c : '-'))
    .join('')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = [...hyphenated].slice(0, MAX_SKILL_NAME_LENGTH).join('').replace(/-+$/, '');
  return isValidSkillName(cut) ? cut : 'my-skill';
}

function issue(
  code: DiagnosticCode,
  message: string,
  hint: string,
  severity: Diagnostic['severity'] = 'warning',
): Diagnostic {
  return { severity, code, message, hint };
}

function validateName(value: unknown, dirName: string | null): Diagnostic[] {
  if (typeof value !== 'string' || pyStrip(value) === '') {
    return [
      issue(
        'name-empty',
        "Field 'name' must be a non-empty string",
        dirName ? `Set \`name: ${dirName}\`.` : 'Set `name` to the skill folder name.',
      ),
    ];
  }
  const found: Diagnostic[] = [];
  const name = normalizeSkillName(value);
  const length = codePointLength(name);
  // Every hint about an invalid name proposes the same valid one, with the folder renamed to match: hints that
  // each fix one rule (`name: pdf_text` for `PDF_Text`) contradict each other and can still be invalid. Worked out
  // only for a name with a problem: most names have none, and it was a tenth of validating one.
  let hint: string | undefined;
  const suggestedHint = () => {
    if (hint === undefined) {
      const suggested = suggestSkillName(name);
      hint = `Use \`name: ${suggested}\` and rename the folder to '${suggested}'.`;
    }
    return hint;
  };
  if (length > MAX_SKILL_NAME_LENGTH) {
    found.push(
      issue(
        'name-too-long',
        `Skill name '${name}' exceeds ${MAX_SKILL_NAME_LENGTH} character limit (${length} chars)`,
        suggestedHint(),
      ),
    );
  }
  if (name !== name.toLowerCase()) {
    found.push(issue('name-not-lowercase', `Skill name '${name}' must be lowercase`, suggestedHint()));
  }
  if (name.startsWith('-') || name.endsWith('-')) {
    found.push(issue('name-hyphen-edge', 'Skill name cannot start or end with a hyphen', suggestedHint()));
  }
  if (name.includes('--')) {
    found.push(issue('name-consecutive-hyphens', 'Skill name cannot contain consecutive hyphens', suggestedHint()));
  }
  if (!NAME_CHARACTERS.test(name)) {
    found.push(
      issue(
        'name-invalid-characters',
        `Skill name '${name}' contains invalid characters. Only letters, digits, and hyphens are allowed.`,
        suggestedHint(),
      ),
    );
  }
  if (dirName !== null && dirName.normalize('NFKC') !== name) {
    // A valid name: either side may move, but only to a valid name.
    const mismatchHint =
      found.length > 0
        ? suggestedHint()
        : isValidSkillName(normalizeSkillName(dirName))
          ? `Rename the folder to '${name}' or set \`name: ${dirName}\`.`
          : `Rename the folder to '${name}'.`;
    found.push(issue('name-mismatch', `Directory name '${dirName}' must match skill name '${name}'`, mismatchHint));
  }
  return found;
}

function validateDescription(value: unknown): Diagnostic[] {
  if (typeof value !== 'string' || pyStrip(value) === '') {
    return [
      issue(
        'description-empty',
        "Field 'description' must be a non-empty string",
        'Write what the skill does and when to use it.',
        'error',
      ),
    ];
  }
  const length = codePointLength(value);
  if (length > MAX_DESCRIPTION_LENGTH) {
    return [
      issue(
        'description-too-long',
        `Description exceeds ${MAX_DESCRIPTION_LENGTH} character limit (${length} chars)`,
        `Shorten it by ${length - MAX_DESCRIPTION_LENGTH} characters; move details into the body.`,
      ),
    ];
  }
  return [];
}

function validateCompatibility(value: unknown): Diagnostic[] {
  if (typeof value !== 'string') {
    return [
      issue(
        'compatibility-not-string',
        "Field 'compatibility' must be a string",
        'Describe the environment requirements in one string.',
      ),
    ];
  }
  const length = codePointLength(value);
  if (length > MAX_COMPATIBILITY_LENGTH) {
    return [
      issue(
        'compatibility-too-long',
        `Compatibility exceeds ${MAX_COMPATIBILITY_LENGTH} character limit (${length} chars)`,
        `Shorten it by ${length - MAX_COMPATIBILITY_LENGTH} characters.`,
      ),
    ];
  }
  return [];
}

/**
 * skills-ref's `validate_metadata`, same checks in the same order with the same messages. `dirName` is the skill
 * folder's name as found (not normalised: the message shows it raw); `null` skips the match check.
 *
 * Severity: `error` for a missing or empty description (a skill without one is not loaded), `warning` otherwise.
 */
export function validateMetadata(data: Record<string, unknown>, dirName: string | null): Diagnostic[] {
  const found: Diagnostic[] = [];
  const has = (key: string) => Object.hasOwn(data, key);
  const allowed: readonly string[] = ALLOWED_FIELDS;

  const extra = Object.keys(data)
    .filter((key) => !allowed.includes(key))
    .sort(compareCodePoints);
  if (extra.length > 0) {
    found.push(
      issue(
        'unexpected-fields',
        `Unexpected fields in frontmatter: ${extra.join(', ')}. Only ${ALLOWED_FIELDS_REPR} are allowed.`,
        'Move custom fields under `metadata:` (a map of strings) or remove them.',
      ),
    );
  }

  if (!has('name')) {
    found.push(
      issue(
        'name-missing',
        'Missing required field in frontmatter: name',
        dirName ? `Add \`name: ${dirName}\` to the frontmatter.` : 'Add `name:` (the folder name) to the frontmatter.',
      ),
    );
  } else {
    found.push(...validateName(data.name, dirName));
  }

  if (!has('description')) {
    found.push(
      issue(
        'description-missing',
        'Missing required field in frontmatter: description',
        'Add `description:` saying what the skill does and when to use it.',
        'error',
      ),
    );
  } else {
    found.push(...validateDescription(data.description));
  }

  if (has('compatibility')) found.push(...validateCompatibility(data.compatibility));
  return found;
}
