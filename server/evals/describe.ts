/**
 * "Improve the description": the configured model reads the current description and how it did on the training
 * queries (which ones failed, and which skill won instead) and proposes descriptions; each is run as a trigger eval
 * on every query, scored on the training queries and reported on the held-back validation ones (the Agent Skills
 * "optimizing descriptions" method: choose by train, trust validation). Nothing is written: a proposal carries the
 * SKILL.md text it would make, which the author saves through the skill editor's own path.
 */
import fs from 'node:fs/promises';
import { generateText } from 'ai';
import { parseDocument } from 'yaml';
import { DESCRIPTION_REQUEST_TAG } from '../prompt/keys';
import { normalizeSkillText, splitFrontmatter } from '../skills/load/frontmatter';
import type { Skill } from '../skills/types';
import { diffWords, type WordChange } from './describe-diff';
import { type Split, splitOf } from './queries-file';
import { type PromptResult, type Scores, scores, type TriggerPrompt, type TriggerReport } from './trigger';
import { type EvalSetting, runTriggerEval, withDescription } from './trigger-run';

/** The spec's limit on `description`. */
export const MAX_DESCRIPTION_CHARS = 1024;
export const DEFAULT_PROPOSALS = 3;
export const MAX_PROPOSALS = 5;

export interface SplitScore extends Scores {
  /** Queries that met their expectation, of `total`. */
  passed: number;
  total: number;
}

export interface Scored {
  description: string;
  train: SplitScore;
  validation: SplitScore;
}

export interface Proposal extends Scored {
  /** The SKILL.md text with this description: what Save sends to the editor. */
  skillFile: string;
  /** Current to proposed, word by word. */
  diff: WordChange[];
}

export interface DescribeReport {
  skill: string;
  runs: number;
  /** How many queries fell on each side. */
  split: Record<Split, number>;
  current: Scored;
  proposals: Proposal[];
  /** Why fewer proposals came back than asked for (the model's answer unreadable, one too long...). */
  problems: string[];
}

export function splitScore(results: readonly PromptResult[]): SplitScore {
  return {
    passed: results.filter((r) => r.passed).length,
    total: results.length,
    ...scores(results.map((r) => ({ triggered: r.modelTriggered, total: r.runs, wanted: r.shouldTrigger }))),
  };
}

function scored(description: string, report: TriggerReport): Scored {
  const side = (s: Split) => report.results.filter((r) => splitOf(r) === s);
  return { description, train: splitScore(side('train')), validation: splitScore(side('validation')) };
}

/** The request to the model: instructions for a real one, the facts as JSON in a tag any reader can find. */
export function proposalPrompt(
  skill: { name: string; description: string },
  train: TriggerReport,
  count: number,
): string {
  const facts = {
    skill: skill.name,
    current_description: skill.description,
    count,
    max_chars: MAX_DESCRIPTION_CHARS,
    queries: train.results.map((r) => ({
      query: r.text,
      should_trigger: r.shouldTrigger,
      trigger_rate: Number(r.rate.toFixed(2)),
      passed: r.passed,
      ...(r.passed ? {} : { won_instead: r.others.map((o) => o.name ?? 'none') }),
    })),
  };
  return [
    `You write the "description" of an Agent Skill: the only text a model sees when it decides whether to load the skill.`,
    `Propose ${count} different descriptions for the skill "${skill.name}" that would make it load for the queries with should_trigger true and not for the others, especially the ones that failed. Say what the skill does and when to use it, in the third person, without copying the queries, at most ${MAX_DESCRIPTION_CHARS} characters each.`,
    'Answer with JSON only: {"descriptions": ["...", "..."]}',
    `<${DESCRIPTION_REQUEST_TAG}>${JSON.stringify(facts)}</${DESCRIPTION_REQUEST_TAG}>`,
  ].join('\n\n');
}

/** The descriptions in a model's answer: JSON `{descriptions}` or an array, else one per numbered or bulleted line. */
export function parseProposals(
  text: string,
  current: string,
  count: number,
): { descriptions: string[]; problems: string[] } {
  const problems: string[] = [];
  let found: unknown[] | null = null;
  const json = /[[{][\s\S]*[\]}]/.exec(text)?.[0];
  if (json) {
    try {
      const data: unknown = JSON.parse(json);
      if (Array.isArray(data)) found = data;
      else if (data && typeof data === 'object' && Array.isArray((data as { descriptions?: unknown }).descriptions)) {
        found = (data as { descriptions: unknown[] }).descriptions;
      }
    } catch {
      // Not JSON after all: read lines below.
    }
  }
  found ??= text
    .split('\n')
    .map((l) => /^\s*(?:\d+[.)]|[-*])\s+(.+)$/.exec(l)?.[1])
    .filter((l): l is string => l !== undefined);
  const out: string[] = [];
  for (const item of found) {
    if (typeof item !== 'string') continue;
    const d = item.replace(/\s+/g, ' ').trim();
    if (d === '' || d === current.trim() || out.includes(d)) continue;
    if (d.length > MAX_DESCRIPTION_CHARS) {
      problems.push(`A proposal of ${d.length} characters was left out (at most ${MAX_DESCRIPTION_CHARS})`);
      continue;
    }
    out.push(d);
  }
  if (out.length === 0) problems.push('The model proposed no usable description');
  return { descriptions: out.slice(0, count), problems };
}

/** The skill file's text with `description` replaced, the rest of the frontmatter and the body as they were. */
export function withFileDescription(text: string, description: string): string | null {
  const split = splitFrontmatter(text);
  if (!split.ok) return null;
  const doc = parseDocument(split.yaml);
  if (doc.errors.length > 0) return null;
  doc.set('description', description);
  // The fences stay as written (`---`, or `...` closing); only the YAML between them is written again.
  const normalized = normalizeSkillText(text);
  const fence = normalized.slice(0, normalized.indexOf('\n'));
  const start = fence.length + 1 + split.yaml.length;
  const end = normalized.indexOf('\n', start);
  const closing = normalized.slice(start, end === -1 ? undefined : end);
  return `${fence}\n${doc.toString({ lineWidth: 0 })}${closing}\n${split.body}`;
}

export interface DescribeOptions {
  count?: number;
  runs: number;
}

export async function proposeDescriptions(
  setting: EvalSetting,
  skill: Skill,
  prompts: readonly TriggerPrompt[],
  options: DescribeOptions,
): Promise<DescribeReport> {
  const count = Math.max(1, Math.min(MAX_PROPOSALS, options.count ?? DEFAULT_PROPOSALS));
  const baseline = await runTriggerEval(setting, skill, prompts, options.runs);
  const current = scored(skill.description, baseline);
  const train = { ...baseline, results: baseline.results.filter((r) => splitOf(r) === 'train') };
  const answer = await generateText({
    model: setting.model.model,
    messages: [{ role: 'user', content: proposalPrompt(skill, train, count) }],
  });
  const { descriptions, problems } = parseProposals(answer.text, skill.description, count);
  const fileText = await fs.readFile(skill.file, 'utf8');
  const proposals: Proposal[] = [];
  for (const description of descriptions) {
    const skillFile = withFileDescription(fileText, description);
    if (skillFile === null) {
      problems.push('The frontmatter of SKILL.md could not be rewritten with a new description');
      break;
    }
    const report = await runTriggerEval(setting, withDescription(skill, description), prompts, options.runs);
    proposals.push({ ...scored(description, report), skillFile, diff: diffWords(skill.description, description) });
  }
  const sides = prompts.map((p) => splitOf(p));
  return {
    skill: skill.name,
    runs: baseline.runs,
    split: {
      train: sides.filter((s) => s === 'train').length,
      validation: sides.filter((s) => s === 'validation').length,
    },
    current,
    proposals,
    problems,
  };
}
