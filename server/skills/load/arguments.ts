/**
 * Extensions people already write in SKILL.md (Claude Code's), honoured by the app and documented as extensions:
 * - `argument-hint`: shown after the name in the slash menu (`/fix-issue [issue-number]`).
 * - `when_to_use`: appended to the description in the catalog, so the model sees when to pick the skill.
 * - `$ARGUMENTS`, `$1`..`$9` in the instructions: replaced with what followed `/name` when the skill is invoked.
 * skills-ref rejects both fields as unexpected, so `bin/skills validate` still does; the app shows them as `info`.
 */
import { stripHiddenText } from './hidden-text';

/**
 * Splits invocation text into arguments: whitespace separates, and "double" or 'single' quotes keep spaces inside
 * one argument (`/fix "login page" high` -> `login page`, `high`).
 */
export function splitArguments(text: string): string[] {
  const args: string[] = [];
  for (const match of text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) args.push(match[1] ?? match[2] ?? match[3] ?? '');
  return args;
}

const PLACEHOLDER = /\$(ARGUMENTS|[1-9])/g;
const HAS_PLACEHOLDER = /\$(ARGUMENTS|[1-9])/;

/**
 * The instructions with `$ARGUMENTS` (the whole text after `/name`, trimmed) and `$1`..`$9` (the split arguments;
 * a missing one becomes empty) replaced, in one pass so an argument that itself contains `$1` stays as typed.
 * When the instructions use no placeholder but arguments were given, they are appended as `ARGUMENTS: ...`
 * (Claude Code does the same), so they are never lost.
 */
export function substituteArguments(instructions: string, rawArguments: string): string {
  const all = rawArguments.trim();
  if (!HAS_PLACEHOLDER.test(instructions)) {
    return all === '' ? instructions : `${instructions.replace(/\s*$/, '')}\n\nARGUMENTS: ${all}\n`;
  }
  const positional = splitArguments(all);
  return instructions.replace(PLACEHOLDER, (_, which: string) =>
    which === 'ARGUMENTS' ? all : (positional[Number(which) - 1] ?? ''),
  );
}

/**
 * The description the catalog shows: `when_to_use` appended when the skill has one, without hidden characters (the
 * budgeted catalog, the authoring preview and the trigger check all start from this text).
 */
export function catalogDescription(skill: { description: string; frontmatter?: { when_to_use?: string } }): string {
  const when = skill.frontmatter?.when_to_use?.trim();
  if (!when) return stripHiddenText(skill.description);
  return stripHiddenText(`${skill.description.replace(/[\s.]*$/, '')}. ${when}`);
}

/** The slash menu's label after the name: the `argument-hint`, or nothing. */
export function argumentHint(skill: { frontmatter: { 'argument-hint'?: string } }): string | undefined {
  const hint = skill.frontmatter['argument-hint']?.trim();
  return hint ? hint : undefined;
}
