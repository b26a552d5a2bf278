/**
 * Activated skills' instructions, re-attached to the model's input on every later turn (and on Regenerate, whose
 * earlier activation card is gone), each read here and written as its block by server/prompt/skill-block.ts. The activation tool de-duplicates ("already active"), so without this block a model
 * that lost the first activation from its history would have no instructions at all.
 */
import { skillContentBlock } from '../prompt/skill-block';
import { type DisplayContext, displaySkillLocation } from '../skills/display';
import { stripHiddenText } from '../skills/load/hidden-text';
import { listSkillFiles } from '../skills/resources/files';
import { readSkillInstructions } from '../skills/resources/resources';
import type { Skill } from '../skills/types';

/** Files listed per skill; the activation card uses the same cap. */
const MAX_LISTED_FILES = 100;

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
  return skillContentBlock({
    name: skill.name,
    instructions: stripHiddenText(read.body),
    truncated: read.truncated,
    location: displaySkillLocation(skill, options.display),
    files,
    capped: listing.capped,
  });
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
