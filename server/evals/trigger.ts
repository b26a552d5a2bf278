/**
 * The trigger check for authors: example prompts that should and should not activate a skill, run against the
 * configured model (n runs each, the real catalog and instructions, the activation tool offered but never run) and
 * against the matcher (deterministic: one run). "Triggered" means the model called `skills_activate` for this skill
 * on its first step; when it called it for another skill, that skill won. Works with the offline model, which needs
 * no key. Pure apart from the model calls.
 */
import { createHash } from 'node:crypto';
import { generateText, type LanguageModel, tool } from 'ai';
import { z } from 'zod';
import { buildInstructions } from '../prompt/instructions';
import type { Matcher } from '../skills/catalog/match';
import { TOOL_ACTIVATE } from '../tools/names';
import { MAX_FILE_QUERIES, type Split } from './queries-file';

export interface TriggerPrompt {
  text: string;
  shouldTrigger: boolean;
  /** Given by the queries file; else `splitOf` (queries-file.ts) decides when it matters. */
  split?: Split;
  /** Carried in the skill's `evals/trigger-queries.json`, or typed on its page. */
  from?: 'file' | 'typed';
}

/** What the first step activated instead of this skill: another skill's name, or null for none. */
export interface OtherOutcome {
  name: string | null;
  runs: number;
}

export interface PromptResult extends TriggerPrompt {
  /** Runs in which the model activated the skill, out of `runs`. */
  modelTriggered: number;
  runs: number;
  /** `modelTriggered / runs`. */
  rate: number;
  /** The rate meets the expectation at the threshold (`passes`). */
  passed: boolean;
  /** The runs that did not activate this skill, by what they activated instead (most runs first). */
  others: OtherOutcome[];
  /** The matcher lists the skill as relevant (score >= threshold) for the prompt. */
  matcherTriggered: boolean;
}

export interface Scores {
  /** Of the activations, how many were wanted; null when there were none. */
  precision: number | null;
  /** Of the wanted activations, how many happened; null when no prompt should trigger. */
  recall: number | null;
}

export interface TriggerReport {
  skill: string;
  descriptionHash: string;
  runs: number;
  /** See `passes`. */
  threshold: number;
  results: PromptResult[];
  /** Every prompt passed. */
  passed: boolean;
  model: Scores;
  matcher: Scores;
}

export interface TriggerCheckInput {
  model: LanguageModel;
  /** The catalog block the model sees in a chat (the skill must be listed in it). */
  catalog: string;
  matcher: Pick<Matcher, 'match'>;
  skill: { name: string; description: string };
  prompts: readonly TriggerPrompt[];
  runs: number;
  /** Model calls in flight at once (default 4): a hosted model is slow one call at a time. */
  concurrency?: number;
}

/**
 * A prompt that should trigger passes at a rate of at least the threshold; one that should not, at a rate of at most
 * it. With the default three runs: 2/3 or 3/3 activations, and 0/3 or 1/3.
 */
export const TRIGGER_THRESHOLD = 0.5;

export function passes(shouldTrigger: boolean, rate: number, threshold = TRIGGER_THRESHOLD): boolean {
  return shouldTrigger ? rate >= threshold : rate <= threshold;
}

/** Typed on the page; a run also takes the skill's carried queries (queries-file.ts). */
export const MAX_PROMPTS = 20;
export const MAX_RUNS = 10;

/** Prompts typed on a skill's page, as the trigger and describe routes take them. */
export const typedPromptsSchema = z
  .array(z.object({ text: z.string().max(2000), shouldTrigger: z.boolean() }).strict())
  .max(MAX_PROMPTS);

/** Short hash of the description the model saw, so runs before and after an edit can be told apart. */
export function descriptionHash(description: string): string {
  return createHash('sha256').update(description).digest('hex').slice(0, 12);
}

/** Precision and recall from counts of (triggered, wanted) pairs. */
export function scores(pairs: ReadonlyArray<{ triggered: number; total: number; wanted: boolean }>): Scores {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const p of pairs) {
    if (p.wanted) {
      tp += p.triggered;
      fn += p.total - p.triggered;
    } else fp += p.triggered;
  }
  return { precision: tp + fp === 0 ? null : tp / (tp + fp), recall: tp + fn === 0 ? null : tp / (tp + fn) };
}

/**
 * One model run: which skill does the first step activate? This one (`self`), another (its name), or none (null).
 * The tool is never executed, so there is no second step.
 */
async function firstActivation(input: TriggerCheckInput, text: string): Promise<string | null> {
  const result = await generateText({
    model: input.model,
    instructions: buildInstructions({ catalog: input.catalog, activatedNames: [] }),
    messages: [{ role: 'user', content: text }],
    tools: {
      [TOOL_ACTIVATE]: tool({
        description: 'Load a skill from available_skills by name',
        inputSchema: z.object({ name: z.string() }),
      }),
    },
  });
  const named = result.toolCalls
    .filter((call) => call.toolName === TOOL_ACTIVATE)
    .map((call) => (call.input as { name?: unknown }).name)
    .filter((name): name is string => typeof name === 'string');
  if (named.includes(input.skill.name)) return input.skill.name;
  return named[0] ?? null;
}

/** Runs `task` over `items` with at most `limit` in flight, results in the items' order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await task(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

function resultFor(
  prompt: TriggerPrompt,
  outcomes: Array<string | null>,
  self: string,
  matched: boolean,
): PromptResult {
  const modelTriggered = outcomes.filter((o) => o === self).length;
  const counts = new Map<string | null, number>();
  for (const o of outcomes) if (o !== self) counts.set(o, (counts.get(o) ?? 0) + 1);
  const others = [...counts].map(([name, runs]) => ({ name, runs })).sort((a, b) => b.runs - a.runs);
  const rate = outcomes.length === 0 ? 0 : modelTriggered / outcomes.length;
  return {
    ...prompt,
    modelTriggered,
    runs: outcomes.length,
    rate,
    passed: passes(prompt.shouldTrigger, rate),
    others,
    matcherTriggered: matched,
  };
}

export async function runTriggerCheck(input: TriggerCheckInput): Promise<TriggerReport> {
  const runs = Math.max(1, Math.min(MAX_RUNS, Math.floor(input.runs)));
  const prompts = input.prompts.slice(0, MAX_PROMPTS + MAX_FILE_QUERIES);
  const jobs = prompts.flatMap((p, i) => Array.from({ length: runs }, () => ({ i, text: p.text })));
  const outcomes = await mapLimited(jobs, input.concurrency ?? 4, (job) => firstActivation(input, job.text));
  const self = input.skill.name;
  const results = prompts.map((prompt, i) =>
    resultFor(
      prompt,
      outcomes.filter((_, j) => jobs[j]!.i === i),
      self,
      input.matcher.match(prompt.text).some((r) => r.name === self),
    ),
  );
  return {
    skill: self,
    descriptionHash: descriptionHash(input.skill.description),
    runs,
    threshold: TRIGGER_THRESHOLD,
    results,
    passed: results.every((r) => r.passed),
    model: scores(results.map((r) => ({ triggered: r.modelTriggered, total: r.runs, wanted: r.shouldTrigger }))),
    matcher: scores(results.map((r) => ({ triggered: r.matcherTriggered ? 1 : 0, total: 1, wanted: r.shouldTrigger }))),
  };
}
