/**
 * `skills_runScript`: runs a script of an active skill in the sandbox (server/sandbox/run.ts). Activation comes
 * first so consent (for skills under `ask`) covers the scripts too; a script of such a skill that declares network
 * hosts the operator has not granted asks once more, for those hosts (network-consent.ts). A non-zero exit code is a
 * result, not an error.
 * Offered only while an active skill has scripts (one can become active mid-turn).
 */
import { z } from 'zod';
import type { SkillHosts } from '../egress/grants';
import type { EgressSummaryLine } from '../egress/types';
import { runSkillScript, skillHasScripts } from '../sandbox/run';
import { isScriptPath } from '../skills/resources/files';
import type { Skill } from '../skills/types';
import type { FileChange } from '../workspace/workspace';
import { type SkillToolContext, SkillToolError, skillNamed } from './context';
import { defineTool, skillNameSchema } from './define';
import { TOOL_ACTIVATE, TOOL_RUN_SCRIPT } from './names';
import { scriptNetworkConsent } from './network-consent';
import { changedSkillRefusal } from './served-pin';

export interface RunScriptInput {
  name: string;
  path: string;
  args?: string[];
}

/** A run's egress per host:port (egress/types.ts `EgressSummaryLine`), shown as the card's egress lines. */
export const egressLines = z.array(
  z.object({
    host: z.string(),
    port: z.number(),
    allowed: z.boolean(),
    requests: z.number(),
    bytesIn: z.number(),
    bytesOut: z.number(),
    reason: z.string().optional(),
  }),
) satisfies z.ZodType<EgressSummaryLine[]>;

const runScriptOutput = z.object({
  name: z.string(),
  path: z.string(),
  args: z.array(z.string()),
  exitCode: z.number(),
  stdout: z.string(),
  stderr: z.string(),
  durationMs: z.number(),
  truncated: z.boolean(),
  timedOut: z.boolean(),
  /** Why the sandbox stopped the script (limits, read-only folder), when it did. */
  error: z.string().optional(),
  /** Which limit stopped the run (`processes`, `memory`, `timeout`...), when one did. */
  limit: z.string().optional(),
  /** How to install a missing runtime package or tool the output shows. */
  hint: z.string().optional(),
  /** Workspace files the run created or changed (download: GET /api/chats/:id/files/:name). */
  files: z
    .array(
      z.object({
        name: z.string(),
        size: z.number(),
        mediaType: z.string(),
        status: z.enum(['created', 'changed']),
        /** The copy of this version the chat keeps (the viewer's earlier versions). */
        version: z.string().optional(),
      }),
    )
    .optional(),
  /** What the run reached or tried to reach through its egress proxy, per host:port; absent without egress. */
  egress: egressLines.optional(),
});

export type RunScriptOutput = z.infer<typeof runScriptOutput>;
export type ProducedFile = NonNullable<RunScriptOutput['files']>[number];

/**
 * Runs a script of an active skill. `approved`: the declared hosts this call's consent covered (network-consent.ts),
 * which its run may reach beyond the skill's grants; none unless the person allowed them.
 */
export async function runScript(
  ctx: SkillToolContext,
  name: string,
  scriptPath: string,
  args: string[],
  approved?: readonly SkillHosts[],
): Promise<RunScriptOutput> {
  const skill = skillNamed(ctx, name);
  if (!ctx.activated.has(skill.name)) {
    throw new SkillToolError(`Activate "${skill.name}" with ${TOOL_ACTIVATE} before running its scripts`);
  }
  // A served skill runs from the host's copy: every file fetched and verified first (as are other active ones),
  // and only as listed when it was activated (served-pin.ts).
  const active = [skill, ...[...ctx.activated].map((n) => ctx.skills.get(n))];
  const changed = changedSkillRefusal(ctx, active);
  if (changed) throw new SkillToolError(changed);
  const unready = await fillServedCopies(active);
  if (unready) throw new SkillToolError(unready);
  // The chat's workspace is the script's working directory; `files` says what it created or changed there.
  const result = await runSkillScript(skill, scriptPath, args, {
    signal: ctx.signal,
    chatId: ctx.chatId,
    execution: ctx.execution,
    owner: ctx.owner ?? ctx.chatId,
    skills: [...ctx.activated].flatMap((n) => {
      const active = ctx.skills.get(n);
      return active ? [{ name: active.name, dir: active.dir }] : [];
    }),
    // A skill's script is attributed to that skill alone: its grants, its secrets, the hosts its approval named.
    egress: ctx.egress?.([skill], approved),
  });
  const refused =
    result.errorCode === 'invalid-path' ||
    result.errorCode === 'not-found' ||
    result.errorCode === 'unsupported-script';
  await ctx.onScriptRun?.({
    skillName: skill.name,
    script: scriptPath,
    args,
    exitCode: result.errorCode === 'invalid-path' || result.errorCode === 'not-found' ? null : result.exitCode,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
  });
  if (refused) throw new SkillToolError(result.error ?? `Cannot run ${scriptPath}`);
  return {
    name: skill.name,
    path: scriptPath,
    args,
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
    durationMs: Math.round(result.durationMs),
    truncated: result.truncated,
    timedOut: result.timedOut,
    ...(result.error ? { error: result.error } : {}),
    ...(result.limit ? { limit: result.limit } : {}),
    ...(result.hint ? { hint: result.hint } : {}),
    files: filesOutput(result.files),
    ...(result.egress ? { egress: result.egress } : {}),
  };
}

/** Fills the local copies of the served skills among `skills` (folder skills need nothing); the first failure. */
export async function fillServedCopies(
  skills: ReadonlyArray<Pick<Skill, 'origin'> | undefined>,
): Promise<string | null> {
  for (const skill of skills) {
    const filled = await skill?.origin?.files.fetchAll();
    if (filled && !filled.ok) return filled.error;
  }
  return null;
}

// Asked before every step of a turn: a skill's folder is walked once per turn, not once per step.
const hasScriptsThisTurn = new WeakMap<SkillToolContext['activated'], Map<string, Promise<boolean>>>();

/** Active skills that have scripts: the script tool is offered only while there is one. */
export async function runnableSkills(ctx: Pick<SkillToolContext, 'skills' | 'activated'>): Promise<string[]> {
  let known = hasScriptsThisTurn.get(ctx.activated);
  if (!known) {
    known = new Map();
    hasScriptsThisTurn.set(ctx.activated, known);
  }
  const names = [...ctx.activated].filter((n) => ctx.skills.has(n));
  const has = await Promise.all(
    names.map((n) => {
      let pending = known.get(n);
      if (!pending) {
        const skill = ctx.skills.get(n)!;
        pending = skill.origin
          ? Promise.resolve(skill.origin.files.list().some((p) => isScriptPath(p)))
          : skillHasScripts(skill.dir);
        known.set(n, pending);
      }
      return pending;
    }),
  );
  return names.filter((_, i) => has[i]);
}

export const runScriptTool = defineTool({
  name: TOOL_RUN_SCRIPT,
  descriptionFile: new URL('./run-script.txt', import.meta.url),
  input: (ctx) =>
    z.object({
      name: skillNameSchema(ctx).describe('The skill name (the skill must be active)'),
      path: z.string().min(1).max(1024).describe('Script path relative to the skill folder'),
      args: z.array(z.string().max(4096)).max(32).optional().describe('Arguments passed to the script'),
    }),
  output: runScriptOutput,
  // A skill under `ask` that declares hosts the operator has not granted: the person is asked before its script runs.
  consent: (ctx, input) => {
    const skill = typeof input.name === 'string' ? ctx.skills.get(input.name) : undefined;
    return skill ? scriptNetworkConsent(ctx, skill) : null;
  },
  offered: async (ctx) => (await runnableSkills(ctx)).length > 0,
  execute: (ctx, { name, path, args }: RunScriptInput, call) =>
    runScript(ctx, name, path, args ?? [], call ? ctx.approvedNetwork?.(call.toolCallId) : undefined),
});

/** The files a run made or changed, as both run tools report them (the kept version's id when there is one). */
export function filesOutput(files: readonly FileChange[]) {
  return files.map(({ name, size, mediaType, status, version }) => ({
    name,
    size,
    mediaType,
    status,
    ...(version ? { version } : {}),
  }));
}
