/**
 * A served skill's activation is pinned to the listing it was approved under (its `resourcesHash`, stored with the
 * activation). The MCP server may change the skill's files at any time; within a chat that already activated it, a
 * change must not run unseen: its scripts and the shell (which mounts every active skill) refuse it with a message
 * that says to activate it again, and activating it again goes through consent as a first activation does (a grant
 * for the old listing does not cover the new one). A dynamic skill has no listing to pin (and no standing grant).
 */
import type { Skill } from '../skills/types';
import type { SkillToolContext } from './context';
import { TOOL_ACTIVATE } from './names';

/** What an activation of `skill` is pinned to: a served skill's listing; null for a folder or dynamic skill. */
export function activationVersion(skill: Pick<Skill, 'origin'>): string | null {
  return skill.origin?.resourcesHash ?? null;
}

/** Whether a served skill active in this chat is served now with other files than it was activated with. */
export function changedSinceActivation(
  ctx: Pick<SkillToolContext, 'activated' | 'pins'>,
  skill: Pick<Skill, 'name' | 'origin'>,
): boolean {
  if (!skill.origin || skill.origin.dynamic || !ctx.activated.has(skill.name)) return false;
  return (ctx.pins?.get(skill.name) ?? null) !== activationVersion(skill);
}

/** The refusal for a run that would use such a skill's files; null when every one is as approved. */
export function changedSkillRefusal(
  ctx: Pick<SkillToolContext, 'activated' | 'pins'>,
  skills: ReadonlyArray<Pick<Skill, 'name' | 'origin'> | undefined>,
): string | null {
  const changed = skills.find((s) => s !== undefined && changedSinceActivation(ctx, s));
  if (!changed) return null;
  return `The MCP server "${changed.origin!.server}" changed the files of skill "${changed.name}" since it was activated in this chat; they are not run unseen. Activate it again with ${TOOL_ACTIVATE} to review the change first.`;
}
