/** `skills_activate`: loads a skill's instructions and lists its files. Needs consent for skills under `ask`. */
import { z } from 'zod';
import { refusal } from '../access/access';
import { SANDBOX_PATHS } from '../sandbox/port';
import { mountName } from '../sandbox/run';
import { type DisplayContext, displaySkillLocation } from '../skills/display';
import { substituteArguments } from '../skills/load/arguments';
import { stripHiddenText } from '../skills/load/hidden-text';
import { listSkillFiles } from '../skills/resources/files';
import { readSkillInstructions } from '../skills/resources/resources';
import { activationConsent } from './activate-consent';
import { type ActivationHow, type SkillToolContext, SkillToolError, skillNamed } from './context';
import { defineTool, skillNameSchema } from './define';
import { TOOL_ACTIVATE, TOOL_SHELL } from './names';
import { activationVersion, changedSinceActivation } from './served-pin';

/** The activation's word on running the skill as written: its folder in the sandbox and its relative paths. */
export function sandboxNote(mounted: string): string {
  const dir = `${SANDBOX_PATHS.skills}/${mounted}`;
  return `In the sandbox (${TOOL_SHELL}) this skill is at ${dir} (read-only) and the chat's files are in /workspace, the working directory. Paths in its instructions such as scripts/x.py are relative to the skill folder: run them as python3 ${dir}/scripts/x.py, and write outputs to /workspace.`;
}

export interface ActivateInput {
  name: string;
}

const activateOutput = z.object({
  name: z.string(),
  description: z.string(),
  /** Skill folder for display: relative to its root, prefixed with the root's short label (e.g. `.skills/pdf`). */
  location: z.string(),
  /** The SKILL.md body. Empty when `alreadyActive`. */
  instructions: z.string(),
  /** Files in the skill folder (relative paths), capped. */
  resources: z.array(z.string()),
  truncated: z.boolean(),
  notice: z.string().optional(),
  /** The skill was already active in this chat: its instructions are not repeated. */
  alreadyActive: z.boolean().optional(),
  /** `allowed-tools` from the frontmatter: shown to people, grants nothing by itself. */
  allowedTools: z.string().optional(),
  how: z.enum(['explicit', 'model']),
  /** Where the skill is in the chat's sandbox, and how its relative paths run there (while the shell is on). */
  sandbox: z.string().optional(),
});

export type ActivateOutput = z.infer<typeof activateOutput>;

/** Activation shared by the model's tool call and the server-side bare `/name` invocation. */
export async function activateSkill(ctx: SkillToolContext, name: string, how: ActivationHow): Promise<ActivateOutput> {
  const skill = skillNamed(ctx, name);
  // The model's own activation is checked here. A person's `/name` was checked once, by the turn, with the invocation
  // (server/chat/turn/context.ts): a refused one is answered by the server and never reaches a tool.
  const access = ctx.access.get(skill.name);
  const refused = how === 'model' && access ? refusal(access, how) : null;
  if (refused) throw new SkillToolError(refused);
  const base = {
    name: skill.name,
    description: stripHiddenText(skill.description),
    location: displaySkillLocation(skill, ctx.display satisfies DisplayContext),
    how,
    ...(skill.frontmatter['allowed-tools'] ? { allowedTools: skill.frontmatter['allowed-tools'] } : {}),
  };
  // Active already, and as approved: nothing new to load. A served skill whose files changed since is loaded again.
  if (ctx.activated.has(skill.name) && !changedSinceActivation(ctx, skill)) {
    return {
      ...base,
      instructions: '',
      resources: [],
      truncated: false,
      alreadyActive: true,
      notice: `Skill "${skill.name}" is already active in this chat; its instructions were loaded earlier.`,
    };
  }
  const read = await readSkillInstructions(skill, { maxBytes: ctx.limits.maxResourceBytes });
  if (!read.ok) throw new SkillToolError(`Could not load skill "${skill.name}": ${read.error}`);
  // A served skill's files are its entry's listing (the local copy holds only what was fetched so far).
  const listing = skill.origin
    ? { files: skill.origin.files.list().map((p) => ({ path: p })), capped: false }
    : await listSkillFiles(skill.dir, { maxFiles: 100 });
  const skillFile = skill.file.slice(skill.dir.length + 1);
  const resources = listing.files.map((f) => f.path).filter((p) => p !== skillFile);
  ctx.activated.add(skill.name);
  await ctx.onActivated(skill.name, how, activationVersion(skill));
  const mounted = (ctx.shell ?? 'off') !== 'off' ? mountName(skill.name) : null;
  return {
    ...base,
    ...(mounted ? { sandbox: sandboxNote(mounted) } : {}),
    // Only a person's `/name args` fills the placeholders; the model's own activation gets the body as written.
    instructions: stripHiddenText(
      how === 'explicit' && ctx.explicitArguments ? substituteArguments(read.body, ctx.explicitArguments) : read.body,
    ),
    resources: listing.capped ? [...resources, '… (more files not listed)'] : resources,
    truncated: read.truncated,
    ...(read.notice ? { notice: read.notice } : {}),
  };
}

export const activateTool = defineTool({
  name: TOOL_ACTIVATE,
  descriptionFile: new URL('./activate.txt', import.meta.url),
  input: (ctx) => z.object({ name: skillNameSchema(ctx).describe('The skill name, exactly as in available_skills') }),
  output: activateOutput,
  consent: activationConsent,
  offered: (ctx) => ctx.skills.size > 0,
  execute: (ctx, { name }: ActivateInput) =>
    activateSkill(ctx, name, ctx.explicitSkills?.includes(name) ? 'explicit' : 'model'),
});
