/**
 * An activated skill's block in the instructions: the spec's client guide wraps its instructions as
 * `<skill_content name="...">` with a `<skill_resources>` list. What goes in it is read by chat/skill-content.ts.
 */
import { TOOL_READ_RESOURCE } from '../tools/names';
import { SKILL_CONTENT_TAG, SKILL_DIRECTORY_LABEL, SKILL_RESOURCES_TAG, SUMMARY_TAG } from './keys';

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const WRAPPERS = new RegExp(`<(?=\\s*\\/?\\s*(?:${SKILL_CONTENT_TAG}|${SKILL_RESOURCES_TAG}|${SUMMARY_TAG})\\b)`, 'gi');

/**
 * Skill text is untrusted: it must not close our wrapper and speak outside it, nor open another block of the
 * instructions (the summary's). Spaces inside the tag (`< /skill_content >`) read as a tag to a model too, so they
 * are matched; hidden characters are stripped before this, so none can sit between `<` and the name.
 */
export function neutraliseWrapper(body: string): string {
  return body.replace(WRAPPERS, '&lt;');
}

export interface SkillBlock {
  name: string;
  /** The instructions, hidden characters already stripped. */
  instructions: string;
  truncated: boolean;
  /** Where the skill is, as people may see it. */
  location: string;
  /** Its files besides SKILL.md, relative to its folder. */
  files: readonly string[];
  /** More files exist than are listed. */
  capped: boolean;
}

export function skillContentBlock(block: SkillBlock): string {
  return [
    `<${SKILL_CONTENT_TAG} name="${escapeXml(block.name)}">`,
    neutraliseWrapper(block.instructions.trim()),
    ...(block.truncated ? ['(instructions truncated)'] : []),
    '',
    `${SKILL_DIRECTORY_LABEL}${block.location}`,
    `Relative paths in this skill are relative to the skill directory; read them with ${TOOL_READ_RESOURCE}.`,
    `<${SKILL_RESOURCES_TAG}>`,
    ...block.files.map((f) => `  <file>${escapeXml(f)}</file>`),
    ...(block.capped ? ['  <!-- more files not listed -->'] : []),
    `</${SKILL_RESOURCES_TAG}>`,
    `</${SKILL_CONTENT_TAG}>`,
  ].join('\n');
}
