/**
 * Activated skills' instructions, re-attached to the model's input on every later turn (and on Regenerate, whose
 * earlier activation card is gone): the spec's client guide wraps each as `<skill_content name="...">` with a
 * `<skill_resources>` list. The activation tool de-duplicates ("already active"), so without this block a model
 * that lost the first activation from its history would have no instructions at all.
 */
import { type DisplayContext, displaySkillLocation } from '../skills/display';
import { stripHiddenText } from '../skills/load/hidden-text';
import { listSkillFiles } from '../skills/resources/files';
import { readSkillInstructions } from '../skills/resources/resources';
import type { Skill } from '../skills/types';
import { TOOL_READ_RESOURCE } from '../tools/names';

/** Files listed per skill; the activation card uses the same cap. */
const MAX_LISTED_FILES = 100;

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * Skill text is untrusted: it must not close our wrapper and speak outside it, nor open another block of the
 * instructions (the summary's). Spaces inside the tag (`< /skill_content >`) read as a tag to a model too, so they
 * are matched; hidden characters are stripped before this, so none can sit between `<` and the name.
 */
export function neutraliseWrapper(body: string): string {
  return body.replace(/<(?=\s*\/?\s*(?:skill_content|skill_resources|conversation_summary)\b)/gi, '&lt;');
}

export interface SkillContentOptions {
  maxBytes: number;
  display: DisplayContext;
}

/** One skill's block, or null when its instructions cannot be read now (the skill changed or went away). */
export async function renderSkillContent(skill: Skill, options: SkillContentOptions): Promise<string | null> {
  const read = await readSkillInstructions(skill, { maxBytes: options.maxBytes });
  if (!read.ok) return null;
  const listing = await listSkillFiles(skill.dir, { maxFiles: MAX_LISTED_FILES });
  const skillFile = skill.file.slice(skill.dir.length + 1);
  const files = listing.files.map((f) => f.path).filter((p) => p !== skillFile);
  const lines = [
    `<skill_content name="${escapeXml(skill.name)}">`,
    neutraliseWrapper(stripHiddenText(read.body).trim()),
    ...(read.truncated ? ['(instructions truncated)'] : []),
    '',
    `Skill directory: ${displaySkillLocation(skill, options.display)}`,
    `Relative paths in this skill are relative to the skill directory; read them with ${TOOL_READ_RESOURCE}.`,
    '<skill_resources>',
    ...files.map((f) => `  <file>${escapeXml(f)}</file>`),
    ...(listing.capped ? ['  <!-- more files not listed -->'] : []),
    '</skill_resources>',
    '</skill_content>',
  ];
  return lines.join('\n');
}

/**
 * The blocks for the chat's activated skills that are still usable, in name order (stable for prompt caching).
 * A skill since denied or switched off is not re-attached: access is decided per turn.
 */
export async function renderActiveSkills(
  names: readonly string[],
  usable: ReadonlyMap<string, Skill>,
  options: SkillContentOptions,
): Promise<string> {
  const blocks: string[] = [];
  for (const name of [...names].sort()) {
    const skill = usable.get(name);
    if (!skill) continue;
    const block = await renderSkillContent(skill, options);
    if (block) blocks.push(block);
  }
  return blocks.join('\n\n');
}
