/** `skills_readResource`: one file of a skill, through the confined reader. */
import { z } from 'zod';
import { type ResourceResult, readSkillResource } from '../skills/resources';
import { type SkillToolContext, SkillToolError, skillNamed } from './context';
import { defineTool, skillNameSchema } from './define';
import { TOOL_READ_RESOURCE } from './names';

export interface ReadResourceInput {
  name: string;
  path: string;
}

/** What the confined reader returns for a file, plus the skill's name. */
export type ReadResourceOutput = Omit<Extract<ResourceResult, { ok: true }>, 'ok'> & { name: string };

export async function readResource(ctx: SkillToolContext, name: string, relPath: string): Promise<ReadResourceOutput> {
  const skill = skillNamed(ctx, name);
  const result = await readSkillResource(skill, relPath, { maxBytes: ctx.limits.maxResourceBytes });
  if (!result.ok) throw new SkillToolError(result.error);
  const { ok: _ok, ...file } = result;
  return { name: skill.name, ...file };
}

export const readResourceTool = defineTool({
  name: TOOL_READ_RESOURCE,
  descriptionFile: new URL('./read-resource.txt', import.meta.url),
  input: (ctx) =>
    z.object({
      name: skillNameSchema(ctx).describe('The skill name'),
      path: z.string().min(1).max(1024).describe('Path relative to the skill folder'),
    }),
  needsConsent: false,
  execute: (ctx, { name, path }: ReadResourceInput) => readResource(ctx, name, path),
});
