/**
 * The skill tools offered to the model. Each tool resolves the skill by name from the turn's snapshot of the
 * registry (never by joining a name into a path) and reads files only through `server/skills/resources.ts`.
 * Failures are thrown as errors with safe, relative-path messages: the model sees them as tool errors and the
 * browser renders an error card.
 */
import { tool } from 'ai';
import { z } from 'zod';
import type { Limits } from '../config';
import type { ScriptRunInput } from '../db';
import type { ScriptsConfig } from '../sandbox/config';
import { runSkillScript, skillHasScripts } from '../scripts/run';
import { type DisplayContext, displaySkillLocation } from '../skills/display';
import { listSkillFiles } from '../skills/files';
import type { Matcher } from '../skills/match';
import { modelMayActivate, type SkillMode } from '../skills/modes';
import { readSkillInstructions, readSkillResource } from '../skills/resources';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, type SkillSearchHit, searchSkills } from '../skills/search';
import type { Skill } from '../skills/types';
import {
  type ActivateOutput,
  type ReadResourceOutput,
  type RunScriptOutput,
  TOOL_ACTIVATE,
  TOOL_READ_RESOURCE,
  TOOL_RUN_SCRIPT,
  TOOL_SEARCH,
} from './types';

export type ActivationHow = 'explicit' | 'model';

export interface SkillToolContext {
  /** Skills the tools may touch this turn (not denied, not off), by name. */
  skills: ReadonlyMap<string, Skill>;
  /** Mode of a skill (`auto` when unknown). */
  modeOf?: (name: string) => SkillMode;
  /** Names for the activation tool's enum; absent when unlisted skills are reachable (then a free string). */
  activationEnum?: [string, ...string[]] | null;
  /** Set when skills were left out of the catalog: `skills_search` is offered over `skills`. */
  search?: { matcher: () => Matcher; modes: ReadonlyMap<string, SkillMode> } | null;
  /** Names already active in this chat; activation adds to it. */
  activated: Set<string>;
  limits: Limits;
  display: DisplayContext;
  /** Persists an activation (the chat's activations and the event log). */
  onActivated: (name: string, how: ActivationHow) => void;
  /** Name of the skill the person invoked with `/name` this turn: its activation counts as explicit. */
  explicitSkill?: string;
  /** Logs a sandboxed script run. */
  onScriptRun?: (run: Omit<ScriptRunInput, 'chatId' | 'at'>) => void;
  /** Aborts running scripts with the turn (Stop). */
  signal?: AbortSignal;
  /** The chat whose workspace scripts run in, and the sandbox settings (issue 10: real sandbox + workspace). */
  chatId?: string;
  scripts?: ScriptsConfig;
}

export class SkillToolError extends Error {
  override name = 'SkillToolError';
}

/** Names listed in an error, so a 10,000-skill install does not put 10,000 names in one tool result. */
const MAX_NAMES_IN_ERROR = 20;

function unknownSkill(name: string, skills: ReadonlyMap<string, Skill>): SkillToolError {
  const names = [...skills.keys()].sort();
  const shown = names.slice(0, MAX_NAMES_IN_ERROR).join(', ') || '(none)';
  const more =
    names.length > MAX_NAMES_IN_ERROR
      ? `, … and ${names.length - MAX_NAMES_IN_ERROR} more (find them with ${TOOL_SEARCH})`
      : '';
  return new SkillToolError(`Skill "${name}" not found. Available skills: ${shown}${more}`);
}

/** Activation shared by the model's tool call and the server-side bare `/name` invocation. */
export async function activateSkill(ctx: SkillToolContext, name: string, how: ActivationHow): Promise<ActivateOutput> {
  const skill = ctx.skills.get(name);
  if (!skill) throw unknownSkill(name, ctx.skills);
  if (how === 'model' && ctx.modeOf && !modelMayActivate(ctx.modeOf(skill.name))) {
    throw new SkillToolError(`Skill "${skill.name}" is manual: only the person can invoke it, with /${skill.name}`);
  }
  const base = {
    name: skill.name,
    description: skill.description,
    location: displaySkillLocation(skill, ctx.display),
    how,
    ...(skill.frontmatter['allowed-tools'] ? { allowedTools: skill.frontmatter['allowed-tools'] } : {}),
  };
  if (ctx.activated.has(skill.name)) {
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
  const listing = await listSkillFiles(skill.dir, { maxFiles: 100 });
  const skillFile = skill.file.slice(skill.dir.length + 1);
  const resources = listing.files.map((f) => f.path).filter((p) => p !== skillFile);
  ctx.activated.add(skill.name);
  ctx.onActivated(skill.name, how);
  return {
    ...base,
    instructions: read.body,
    resources: listing.capped ? [...resources, '… (more files not listed)'] : resources,
    truncated: read.truncated,
    ...(read.notice ? { notice: read.notice } : {}),
  };
}

export async function readResource(ctx: SkillToolContext, name: string, relPath: string): Promise<ReadResourceOutput> {
  const skill = ctx.skills.get(name);
  if (!skill) throw unknownSkill(name, ctx.skills);
  const result = await readSkillResource(skill, relPath, { maxBytes: ctx.limits.maxResourceBytes });
  if (!result.ok) throw new SkillToolError(result.error);
  const { ok: _ok, ...file } = result;
  return { name: skill.name, ...file };
}

/**
 * Runs a script of an active skill in the sandbox. Activation comes first so consent (for skills under `ask`) covers
 * the scripts too; a non-zero exit code is a result, not an error.
 */
export async function runScript(
  ctx: SkillToolContext,
  name: string,
  scriptPath: string,
  args: string[],
): Promise<RunScriptOutput> {
  const skill = ctx.skills.get(name);
  if (!skill) throw unknownSkill(name, ctx.skills);
  if (!ctx.activated.has(skill.name)) {
    throw new SkillToolError(`Activate "${skill.name}" with ${TOOL_ACTIVATE} before running its scripts`);
  }
  // The workspace is the script's working directory; `files` says what it created or changed there.
  const result = await runSkillScript(skill, scriptPath, args, {
    signal: ctx.signal,
    chatId: ctx.chatId,
    scripts: ctx.scripts,
  });
  ctx.onScriptRun?.({
    skillName: skill.name,
    script: scriptPath,
    args,
    exitCode: result.errorCode === 'invalid-path' || result.errorCode === 'not-found' ? null : result.exitCode,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
  });
  if (
    result.errorCode === 'invalid-path' ||
    result.errorCode === 'not-found' ||
    result.errorCode === 'unsupported-script'
  ) {
    throw new SkillToolError(result.error ?? `Cannot run ${scriptPath}`);
  }
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
    files: result.files.map(({ name, size, mediaType, status }) => ({ name, size, mediaType, status })),
  };
}

/** Active skills that have scripts: the script tool is offered only while there is one. */
// Asked before every step of a turn: a skill's folder is walked once per turn, not once per step.
const hasScriptsThisTurn = new WeakMap<SkillToolContext['activated'], Map<string, Promise<boolean>>>();

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
        pending = skillHasScripts(ctx.skills.get(n)!.dir);
        known.set(n, pending);
      }
      return pending;
    }),
  );
  return names.filter((_, i) => has[i]);
}

export type SkillTools = ReturnType<typeof buildSkillTools>;

export function searchCatalog(ctx: SkillToolContext, query: string, limit: number): SkillSearchHit[] {
  if (!ctx.search) return [];
  const skills = [...ctx.skills.values()];
  return searchSkills(ctx.search.matcher(), skills, query, limit, ctx.search.modes);
}

/** The tool set for a turn, or undefined when there are no skills (no skill tools at all). */
export function createSkillTools(ctx: SkillToolContext): SkillTools | undefined {
  return ctx.skills.size === 0 ? undefined : buildSkillTools(ctx);
}

function buildSkillTools(ctx: SkillToolContext) {
  // An enum keeps the model to known names; with skills left out of the catalog the model may activate one it
  // found by search, and an enum of thousands of names would cost more than the catalog saved: then a string,
  // checked in `execute`.
  const nameSchema = ctx.activationEnum ? z.enum(ctx.activationEnum) : z.string().min(1).max(200);
  return {
    // Offered (through `activeTools`) only when skills were left out of the catalog.
    [TOOL_SEARCH]: tool({
      description:
        'Search all installed skills by what they do, including those not listed in available_skills. Returns names and descriptions, best first; activate a result with skills_activate.',
      inputSchema: z.object({
        query: z.string().min(1).max(1000).describe('What the skill should do'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(MAX_SEARCH_LIMIT)
          .optional()
          .describe(`How many results (default ${DEFAULT_SEARCH_LIMIT})`),
      }),
      execute: async ({ query, limit }) => ({
        query,
        results: searchCatalog(ctx, query, limit ?? DEFAULT_SEARCH_LIMIT),
      }),
    }),
    [TOOL_ACTIVATE]: tool({
      description:
        'Load a skill: returns its instructions (the body of its SKILL.md) and the list of its files. Call it when the request matches the skill description. Do not call it for a skill in activated_skill_names.',
      inputSchema: z.object({ name: nameSchema.describe('The skill name, exactly as in available_skills') }),
      execute: ({ name }) => activateSkill(ctx, name, ctx.explicitSkill === name ? 'explicit' : 'model'),
    }),
    [TOOL_READ_RESOURCE]: tool({
      description:
        "Read a file from a skill's folder (e.g. references/REFERENCE.md, assets/x.json, scripts/run.sh). The path is relative to the skill folder; nothing outside it can be read.",
      inputSchema: z.object({
        name: nameSchema.describe('The skill name'),
        path: z.string().min(1).max(1024).describe('Path relative to the skill folder'),
      }),
      execute: ({ name, path }) => readResource(ctx, name, path),
    }),
    [TOOL_RUN_SCRIPT]: tool({
      description:
        "Run a script from an active skill (.py, .js/.mjs/.cjs, .sh/.bash in its folder, e.g. scripts/fill.py) in a sandbox. The working directory is the chat's workspace (/workspace: the user's uploaded files; files written there are given to the user); the skill folder is read-only at /skill; there is no network. Pass workspace file names as arguments. Returns stdout, stderr, the exit code and the files the run created or changed.",
      inputSchema: z.object({
        name: nameSchema.describe('The skill name (the skill must be active)'),
        path: z.string().min(1).max(1024).describe('Script path relative to the skill folder'),
        args: z.array(z.string().max(4096)).max(32).optional().describe('Arguments passed to the script'),
      }),
      execute: ({ name, path, args }) => runScript(ctx, name, path, args ?? []),
    }),
  };
}
