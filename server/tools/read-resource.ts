/** `skills_readResource`: one file of a skill, through the confined reader. */
import { z } from 'zod';
import { stripHiddenText } from '../skills/load/hidden-text';
import { type ResourceResult, readSkillResource } from '../skills/resources/resources';
import { type SkillToolContext, SkillToolError, skillNamed } from './context';
import { defineTool, skillNameSchema } from './define';
import { TOOL_READ_RESOURCE } from './names';

export interface ReadResourceInput {
  name: string;
  path: string;
}

const readResourceOutput = z.object({
  name: z.string(),
  /** Relative to the skill folder, posix separators, as normalised. */
  path: z.string(),
  /** The text (possibly truncated), or a one-line description when `binary`. */
  content: z.string(),
  bytes: z.number(),
  truncated: z.boolean(),
  binary: z.boolean(),
  mediaType: z.string(),
  notice: z.string().optional(),
});

/** What the confined reader returns for a file, plus the skill's name. */
export type ReadResourceOutput = z.infer<typeof readResourceOutput>;

// The schema follows the reader: a field added to its result and not here fails to compile.
type ReaderFile = Omit<Extract<ResourceResult, { ok: true }>, 'ok'> & { name: string };
const _sameShape: [ReadResourceOutput, ReaderFile] extends [ReaderFile, ReadResourceOutput] ? true : never = true;

export async function readResource(ctx: SkillToolContext, name: string, relPath: string): Promise<ReadResourceOutput> {
  const skill = skillNamed(ctx, name);
  const result = await readSkillResource(skill, relPath, { maxBytes: ctx.limits.maxResourceBytes });
  if (!result.ok) throw new SkillToolError(result.error);
  const { ok: _ok, ...file } = result;
  return { name: skill.name, ...file, content: stripHiddenText(file.content) };
}

export const readResourceTool = defineTool({
  name: TOOL_READ_RESOURCE,
  descriptionFile: new URL('./read-resource.txt', import.meta.url),
  input: (ctx) =>
    z.object({
      name: skillNameSchema(ctx).describe('The skill name'),
      path: z.string().min(1).max(1024).describe('Path relative to the skill folder'),
    }),
  output: readResourceOutput,
  offered: (ctx) => ctx.skills.size > 0,
  execute: (ctx, { name, path }: ReadResourceInput) => readResource(ctx, name, path),
});
