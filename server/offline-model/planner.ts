/**
 * The offline model's decision for one step. The SDK calls the model again after every tool result, so each call
 * re-reads the whole turn from the prompt and picks the next move:
 *   forced tool -> that tool;
 *   `$ COMMAND` (what follows `/name`, or the whole message) not yet run this turn -> sandbox_exec with COMMAND;
 *   a matching skill not yet active -> skills_activate;
 *   paths named by the user (or, for "validate/check/test/verify", by the skill's instructions) not yet read this
 *   turn -> skills_readResource for each, in parallel;
 *   otherwise -> answer from what the tools returned.
 * A request for skill descriptions (`<description_request>`) is answered before any of this (describe.ts).
 * Every branch only moves forward (an activation is tried once per turn, a path read once), so it cannot loop.
 * A forced tool choice is the exception by definition: the caller forces step 0 only (see `prepareStep`).
 */
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { TOOL_ACTIVATE, TOOL_READ_RESOURCE, TOOL_RUN_SCRIPT, TOOL_SEARCH, TOOL_SHELL } from '../tools/names';
import { composeAnswer, shellCommandIn } from './answer';
import { descriptionAnswer } from './describe';
import { mcpCallIn, plannedMcpCall } from './mcp-calls';
import { activatedName, type CatalogEntry, type PromptView, readPrompt } from './prompt-reader';
import { findPathsInMessage, normalizeRequestedPath, pointedFiles } from './resource-paths';

/** The shape of `createMatcher` in `server/skills/catalog/match.ts`, injectable so the model does not own the ranking. */
export interface SkillMatcher {
  rank(text: string, limit?: number): { name: string; score: number }[];
  match(text: string, limit?: number): { name: string; score: number }[];
}
export type MatcherFactory = (skills: readonly CatalogEntry[]) => SkillMatcher;

export interface PlannedCall {
  toolName: string;
  input: Record<string, unknown>;
}

export type OfflinePlan = { type: 'tool-calls'; calls: PlannedCall[] } | { type: 'text'; text: string };

/** Reads in one turn, all sources together: enough for a skill's references, not a crawl of its folder. */
export const MAX_READS_PER_TURN = 8;

/** "run scripts/x.sh", "execute it"; the scripts named in the message run instead of being read. */
const RUN_INTENT = /\b(run|runs|execute|exec)\b/i;
const SCRIPT_PATH = /(^|\/)scripts\/|\.(sh|bash|py|js|mjs|cjs)$/i;

/**
 * `run scripts/x.py A "B C"` passes the words after the path as arguments, as written (single and double
 * quotes group, as in a shell; nothing is expanded). Only the rest of the line the path is on.
 */
export function argsAfter(text: string, scriptPath: string): string[] {
  const line = text.split('\n').find((l) => l.includes(scriptPath));
  if (!line) return [];
  const rest = line.slice(line.indexOf(scriptPath) + scriptPath.length);
  const args: string[] = [];
  for (const m of rest.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) args.push(m[1] ?? m[2] ?? m[3] ?? '');
  return args;
}

/** "check", "tests", "verify"... but not "checkout" or "testament". */
const CHECK_INTENT = /\b(validat\w*|check(s|ed|ing)?|test(s|ed|ing)?|verif\w*|conformance)\b/i;

type CallOptions = Pick<LanguageModelV4CallOptions, 'prompt' | 'tools' | 'toolChoice'>;

interface Situation {
  view: PromptView;
  matcher: SkillMatcher | null;
  /** The skill the message points at: explicit instruction, `/name`, or the best match above threshold. */
  target: string | null;
  active: Set<string>;
  canActivate: (name: string) => boolean;
  canCall: (toolName: string) => boolean;
}

/** A tiny cache: the catalog is the same on every step of a turn and across turns until skills change. */
function cachedFactory(create: MatcherFactory): (catalog: readonly CatalogEntry[]) => SkillMatcher {
  let key = '';
  let keyOf: readonly CatalogEntry[] | null = null;
  let cached: SkillMatcher | null = null;
  return (catalog) => {
    // The prompt reader hands out the same list while the system prompt is the same: no need to compare contents.
    if (cached !== null && catalog === keyOf) return cached;
    keyOf = catalog;
    const nextKey = JSON.stringify(catalog);
    if (cached === null || nextKey !== key) {
      cached = create(catalog);
      key = nextKey;
    }
    return cached;
  };
}

function invokedName(text: string, isKnown: (name: string) => boolean): string | null {
  // A served skill's qualified name has one `:` after its server's label (`/team:pdf`).
  const m = /^\s*[/$]((?:[a-z0-9-]+:)?[\p{L}\p{N}-]+)(?=\s|$)/u.exec(text);
  return m?.[1] && isKnown(m[1]) ? m[1] : null;
}

function assess(options: CallOptions, matcherFor: (catalog: readonly CatalogEntry[]) => SkillMatcher): Situation {
  const view = readPrompt(options);
  const toolChoice = options.toolChoice ?? { type: 'auto' };
  const catalogNames = new Set(view.catalog.map((s) => s.name));
  const activatable = view.activatableNames ? new Set(view.activatableNames) : catalogNames;
  const canActivate = (name: string) => activatable.has(name);
  const canCall = (toolName: string) => toolChoice.type !== 'none' && view.offeredTools.has(toolName);
  const matcher = view.catalog.length > 0 ? matcherFor(view.catalog) : null;

  const active = new Set(view.activeNames);
  for (const exchange of view.turn) {
    const name = activatedName(exchange);
    if (name !== null) active.add(name);
  }

  let target = view.explicitSkill ?? invokedName(view.userText, (n) => catalogNames.has(n) || activatable.has(n));
  if (target === null && matcher && view.userText.trim() !== '') {
    target = matcher.match(view.userText, 5).find((m) => canActivate(m.name))?.name ?? null;
  }
  return { view, matcher, target, active, canActivate, canCall };
}

/** Which skill's folder a path refers to: the one activated this turn, else the one the message is about. */
function skillForReads(s: Situation): string | null {
  const { view } = s;
  const activationsThisTurn = view.turn.filter((e) => e.toolName === TOOL_ACTIVATE);
  for (let i = activationsThisTurn.length - 1; i >= 0; i--) {
    const exchange = activationsThisTurn[i];
    const name = exchange ? activatedName(exchange) : null;
    if (name !== null) return name;
  }
  // An activation this turn failed or was declined: reading from some other skill would answer the wrong question.
  if (activationsThisTurn.length > 0) return null;
  if (s.target !== null) return s.active.has(s.target) ? s.target : null;
  if (s.active.size === 0) return null;
  if (s.matcher) {
    const best = s.matcher.rank(view.userText, 20).find((m) => s.active.has(m.name));
    if (best) return best.name;
  }
  return view.activeNames.at(-1) ?? null;
}

/** Scripts the person asked to run (`run scripts/echo.sh`), not yet run this turn. */
function pendingRuns(s: Situation): string[] {
  const { view } = s;
  if (!RUN_INTENT.test(view.userText)) return [];
  const done = new Set(
    view.turn
      .filter((e) => e.toolName === TOOL_RUN_SCRIPT && typeof e.input.path === 'string')
      .map((e) => normalizeRequestedPath(e.input.path as string)),
  );
  const isSkillName = (n: string) => view.catalog.some((c) => c.name === n);
  return findPathsInMessage(view.userText, { isSkillName }).filter((p) => SCRIPT_PATH.test(p) && !done.has(p));
}

function pendingReads(s: Situation, skill: string): string[] {
  const { view } = s;
  const done = new Set<string>();
  // A script the person asked to run is run, not read.
  if (RUN_INTENT.test(view.userText) && s.canCall(TOOL_RUN_SCRIPT)) {
    for (const p of findPathsInMessage(view.userText)) if (SCRIPT_PATH.test(p)) done.add(p);
  }
  for (const e of view.turn) {
    if (e.toolName === TOOL_READ_RESOURCE && typeof e.input.path === 'string') {
      done.add(normalizeRequestedPath(e.input.path));
    }
  }
  const isSkillName = (n: string) => view.catalog.some((c) => c.name === n);
  const wanted = findPathsInMessage(view.userText, { isSkillName });
  const record = view.activations.get(skill);
  if (record && CHECK_INTENT.test(view.userText)) {
    for (const p of pointedFiles(record)) if (!wanted.includes(p)) wanted.push(p);
  }
  // A name of the person's own file (report.pdf in the workspace) is not the skill's: reading it from the skill
  // would only fail, unless the skill has a file of that name too.
  // So is a file this turn's runs made or were handed (`fill.py form.pdf filled.pdf`): the listing in the prompt
  // is from before them.
  const made = workspaceFilesOfTurn(view.turn);
  const theirs = (p: string) =>
    (view.workspaceFiles.includes(p) || made.has(p)) && !(record?.resources ?? []).includes(p);
  const budget = Math.max(0, MAX_READS_PER_TURN - done.size);
  return wanted.filter((p) => !done.has(p) && !theirs(p)).slice(0, budget);
}

/** The workspace files this turn's runs created or changed, and the arguments its scripts were given. */
function workspaceFilesOfTurn(turn: PromptView['turn']): Set<string> {
  const names = new Set<string>();
  for (const e of turn) {
    if (e.toolName !== TOOL_RUN_SCRIPT && e.toolName !== TOOL_SHELL) continue;
    if (Array.isArray(e.input.args)) {
      for (const a of e.input.args) if (typeof a === 'string') names.add(normalizeRequestedPath(a));
    }
    const value = e.outcome.status === 'ok' ? e.outcome.value : null;
    const files = value && typeof value === 'object' && 'files' in value ? value.files : null;
    for (const f of Array.isArray(files) ? files : []) {
      if (f && typeof f === 'object' && typeof f.name === 'string') names.add(f.name);
    }
  }
  return names;
}

function bestGuessSkill(s: Situation): string | null {
  if (s.target !== null) return s.target;
  const ranked = s.matcher?.rank(s.view.userText, 5).find((m) => s.canActivate(m.name));
  if (ranked) return ranked.name;
  const names = s.view.activatableNames ?? s.view.catalog.map((c) => c.name);
  return names.find((n) => !s.active.has(n)) ?? names[0] ?? null;
}

/** A forced tool choice carries only the tool's name; the arguments come from the same reading of the prompt. */
function forcedCall(s: Situation, toolName: string): PlannedCall {
  if (toolName === TOOL_ACTIVATE) {
    const name = bestGuessSkill(s);
    return { toolName, input: name === null ? {} : { name } };
  }
  if (toolName === TOOL_READ_RESOURCE) {
    const name = skillForReads(s) ?? bestGuessSkill(s);
    const path = name === null ? undefined : pendingReads(s, name)[0];
    return { toolName, input: { ...(name === null ? {} : { name }), path: path ?? 'SKILL.md' } };
  }
  return { toolName, input: {} };
}

function suggestions(s: Situation): CatalogEntry[] {
  if (!s.matcher || s.view.userText.trim() === '') return [];
  return s.matcher
    .rank(s.view.userText, 3)
    .filter((m) => m.score > 0)
    .map((m) => s.view.catalog.find((c) => c.name === m.name))
    .filter((c): c is CatalogEntry => c !== undefined);
}

function naturalStep(s: Situation): OfflinePlan | null {
  // `mcp.<label>.<tool> {json}`: that tool, once; nothing about skills (mcp-calls.ts).
  const mcp = mcpCallIn(s.view.userText);
  if (mcp !== null) {
    const call = plannedMcpCall(s.view, mcp);
    return call && s.canCall(call.toolName) ? { type: 'tool-calls', calls: [call] } : null;
  }
  const command = shellCommandIn(s.view.userText);
  if (command !== null && s.canCall(TOOL_SHELL) && !s.view.turn.some((e) => e.toolName === TOOL_SHELL)) {
    return { type: 'tool-calls', calls: [{ toolName: TOOL_SHELL, input: { command } }] };
  }
  if (command !== null) return null;
  const attempted = s.view.turn.some((e) => e.toolName === TOOL_ACTIVATE);
  // Skills were left out of the catalog (the search tool is offered only then) and none listed fits: search once.
  const searched = s.view.turn.some((e) => e.toolName === TOOL_SEARCH);
  if (s.target === null && !searched && !attempted && s.canCall(TOOL_SEARCH) && s.view.userText.trim() !== '') {
    return {
      type: 'tool-calls',
      calls: [{ toolName: TOOL_SEARCH, input: { query: s.view.userText.slice(0, 500), limit: 5 } }],
    };
  }
  if (
    s.target !== null &&
    !attempted &&
    !s.active.has(s.target) &&
    s.canActivate(s.target) &&
    s.canCall(TOOL_ACTIVATE)
  ) {
    return { type: 'tool-calls', calls: [{ toolName: TOOL_ACTIVATE, input: { name: s.target } }] };
  }
  const skill = skillForReads(s);
  if (skill !== null && s.canCall(TOOL_RUN_SCRIPT)) {
    const scripts = pendingRuns(s);
    if (scripts.length > 0) {
      return {
        type: 'tool-calls',
        calls: scripts.map((path) => ({
          toolName: TOOL_RUN_SCRIPT,
          input: { name: skill, path, args: argsAfter(s.view.userText, path) },
        })),
      };
    }
  }
  if (skill !== null && s.canCall(TOOL_READ_RESOURCE)) {
    const paths = pendingReads(s, skill);
    if (paths.length > 0) {
      return {
        type: 'tool-calls',
        calls: paths.map((path) => ({ toolName: TOOL_READ_RESOURCE, input: { name: skill, path } })),
      };
    }
  }
  return null;
}

export function createPlanner(createMatcher: MatcherFactory): (options: CallOptions) => OfflinePlan {
  const matcherFor = cachedFactory(createMatcher);
  return (options) => {
    const s = assess(options, matcherFor);
    // A request for skill descriptions (server/evals/describe.ts) is answered from its own words.
    const proposals = descriptionAnswer(s.view.userText);
    if (proposals !== null) return { type: 'text', text: proposals };
    const toolChoice = options.toolChoice ?? { type: 'auto' };
    if (toolChoice.type === 'tool' && s.view.offeredTools.has(toolChoice.toolName)) {
      return { type: 'tool-calls', calls: [forcedCall(s, toolChoice.toolName)] };
    }
    const step = naturalStep(s);
    if (step) return step;
    // `required` with nothing natural to do: activate the closest skill, once (a second time would loop).
    const attempted = s.view.turn.some((e) => e.toolName === TOOL_ACTIVATE);
    if (toolChoice.type === 'required' && !attempted && s.canCall(TOOL_ACTIVATE)) {
      return { type: 'tool-calls', calls: [forcedCall(s, TOOL_ACTIVATE)] };
    }
    const text = composeAnswer({
      view: s.view,
      target: s.target,
      suggestions: suggestions(s),
      canActivate: s.target !== null && s.canActivate(s.target) && s.canCall(TOOL_ACTIVATE),
    });
    return { type: 'text', text };
  };
}
