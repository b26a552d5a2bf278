/**
 * Which frontmatter fields outside the spec the app recognises (see arguments.ts for what each does). skills-ref's
 * `unexpected-fields` warning is kept for the fields nobody recognises; the recognised ones get an `info`.
 * `bin/skills validate` does not go through here, so it stays byte-compatible with skills-ref.
 */
import type { Diagnostic } from '../types';
import { ALLOWED_FIELDS, compareCodePoints } from './validate';

export const EXTENSION_FIELDS = ['argument-hint', 'disable-model-invocation', 'user-invocable', 'when_to_use'] as const;

const allowedRepr = `[${[...ALLOWED_FIELDS]
  .sort(compareCodePoints)
  .map((f) => `'${f}'`)
  .join(', ')}]`;

/** `checks` (validateMetadata's) with the recognised extension fields moved out of `unexpected-fields`. */
export function recogniseExtensions(checks: Diagnostic[], data: Record<string, unknown>): Diagnostic[] {
  const at = checks.findIndex((d) => d.code === 'unexpected-fields');
  if (at === -1) return checks;
  const allowed: readonly string[] = ALLOWED_FIELDS;
  const extensions: readonly string[] = EXTENSION_FIELDS;
  const extra = Object.keys(data)
    .filter((key) => !allowed.includes(key))
    .sort(compareCodePoints);
  const recognised = extra.filter((key) => extensions.includes(key));
  if (recognised.length === 0) return checks;
  const unknown = extra.filter((key) => !extensions.includes(key));
  const replaced: Diagnostic[] = [];
  if (unknown.length > 0) {
    replaced.push({
      ...checks[at]!,
      message: `Unexpected fields in frontmatter: ${unknown.join(', ')}. Only ${allowedRepr} are allowed.`,
    });
  }
  replaced.push({
    severity: 'info',
    code: 'extension-fields',
    message: `Recognised extension ${recognised.length === 1 ? 'field' : 'fields'}: ${recognised.join(', ')}`,
    hint: 'Not in the Agent Skills spec (skills-ref reports them as unexpected); skillchat honours them.',
  });
  return [...checks.slice(0, at), ...replaced, ...checks.slice(at + 1)];
}
