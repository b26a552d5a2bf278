/**
 * The trigger check for authors: example prompts that should and should not activate a skill, run against the
 * configured model (n runs each, the real catalog and instructions, the activation tool offered but never run) and
 * against the matcher (deterministic: one run). "Triggered" means the model called `skills_activate` for this skill
 * on its first step. Works with the offline model, which needs no key. Pure apart from the model calls.
 */
import { createHash } from 'node:crypto';
import { generateText, type LanguageModel, tool } from 'ai';
import { z } from 'zod';
import { buildInstructions } from '../prompt/instructions';
import type { Matcher } from '../skills/catalog/match';
import { TOOL_ACTIVATE } from '../tools/names';

export interface TriggerPrompt {
  text: string;
  shouldTrigger: boolean;
}

export interface PromptResult extends TriggerPrompt {
  /** Runs in which the model activated the skill, out of `runs`. */
  modelTriggered: number;
  runs: number;
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
  results: PromptResult[];
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
}

export const MAX_PROMPTS = 20;
export const MAX_RUNS = 10;

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

/** One model run: does the first step call the activation tool for this skill? The tool is never executed. */
async function modelActivates(input: TriggerCheckInput, text: string): Promise<boolean> {
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
  return result.toolCalls.some(
    (call) => call.toolName === TOOL_ACTIVATE && (call.input as { name?: unknown }).name === input.skill.name,
  );
}

export async function runTriggerCheck(input: TriggerCheckInput): Promise<TriggerReport> {
  const runs = Math.max(1, Math.min(MAX_RUNS, Math.floor(input.runs)));
  const results: PromptResult[] = [];
  for (const prompt of input.prompts.slice(0, MAX_PROMPTS)) {
    let modelTriggered = 0;
    for (let i = 0; i < runs; i++) if (await modelActivates(input, prompt.text)) modelTriggered++;
    const matcherTriggered = input.matcher.match(prompt.text).some((r) => r.name === input.skill.name);
    results.push({ ...prompt, modelTriggered, runs, matcherTriggered });
  }
  return {
    skill: input.skill.name,
    descriptionHash: descriptionHash(input.skill.description),
    runs,
    results,
    model: scores(results.map((r) => ({ triggered: r.modelTriggered, total: r.runs, wanted: r.shouldTrigger }))),
    matcher: scores(results.map((r) => ({ triggered: r.matcherTriggered ? 1 : 0, total: 1, wanted: r.shouldTrigger }))),
  };
}
