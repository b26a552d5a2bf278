/**
 * Trigger evals as /admin runs them: the skill's carried queries and the typed ones, the catalog a new chat would
 * get, the configured model, the registry's matcher; each run stored with its date, the description's hash and the
 * skill's content hash (so a version's last result is found, and before/after an edit compare).
 */

import { skillContentHash } from '../access/content-hash';
import type { App } from '../app';
import { addTriggerCheck, listTriggerChecks } from '../db';
import { AppError } from '../errors';
import type { Skill } from '../skills/types';
import { type QueriesFile, readQueriesFile } from './queries-file';
import { MAX_PROMPTS, MAX_RUNS, type TriggerPrompt, type TriggerReport } from './trigger';
import { type EvalModel, type EvalSetting, runTriggerEval } from './trigger-run';

export interface StoredTriggerCheck {
  id: number;
  at: string;
  model: string;
  descriptionHash: string;
  contentHash: string | null;
  report: TriggerReport;
}

export type EvalHost = Pick<App, 'registry' | 'access' | 'config' | 'db'> & { model: EvalModel };

export async function storedTriggerChecks(host: Pick<App, 'db'>, name: string): Promise<StoredTriggerCheck[]> {
  return (await listTriggerChecks(host.db, name)).map((r) => ({
    id: r.id,
    at: r.at.toISOString(),
    model: r.model,
    descriptionHash: r.descriptionHash,
    contentHash: r.contentHash,
    report: JSON.parse(r.report) as TriggerReport,
  }));
}

export async function evalSetting(host: EvalHost): Promise<EvalSetting> {
  const current = await host.registry.current();
  return {
    skills: current.skills,
    access: host.access,
    config: host.config,
    model: host.model,
    matcher: await host.registry.matcher(),
  };
}

export async function evaluatedSkill(host: Pick<App, 'registry'>, name: string): Promise<Skill> {
  const skill = await host.registry.get(name);
  if (!skill) throw new AppError('not_found:skill', `Skill "${name}" not found`);
  return skill;
}

/** The carried queries first, then the typed ones the file does not already hold. */
export function mergePrompts(file: QueriesFile, typed: readonly TriggerPrompt[]): TriggerPrompt[] {
  const carried = file.queries.map((q) => ({ ...q, from: 'file' as const }));
  const known = new Set(carried.map((q) => q.text));
  const extra = typed
    .map((p) => ({ text: p.text.trim(), shouldTrigger: p.shouldTrigger, from: 'typed' as const }))
    .filter((p) => p.text !== '' && !known.has(p.text));
  return [...carried, ...extra];
}

export function checkRuns(runs: number): void {
  if (!Number.isInteger(runs) || runs < 1 || runs > MAX_RUNS) {
    throw new AppError('bad_request:trigger-check', `Runs per query must be 1-${MAX_RUNS}`);
  }
}

export async function runStoredTriggerCheck(
  host: EvalHost,
  name: string,
  typed: TriggerPrompt[],
  runs: number,
): Promise<StoredTriggerCheck & { fileProblems: string[] }> {
  const skill = await evaluatedSkill(host, name);
  if (typed.filter((p) => p.text.trim() !== '').length > MAX_PROMPTS) {
    throw new AppError('bad_request:trigger-check', `At most ${MAX_PROMPTS} typed queries`);
  }
  checkRuns(runs);
  const file = await readQueriesFile(skill);
  const prompts = mergePrompts(file, typed);
  if (prompts.length === 0) {
    throw new AppError(
      'bad_request:trigger-check',
      'Give at least one query: type one, or add evals/trigger-queries.json to the skill',
    );
  }
  const report = await runTriggerEval(await evalSetting(host), skill, prompts, runs);
  const at = new Date();
  const contentHash = await skillContentHash(skill);
  const id = await addTriggerCheck(host.db, {
    skillName: skill.name,
    kind: 'trigger',
    descriptionHash: report.descriptionHash,
    contentHash,
    model: host.model.label,
    runs: report.runs,
    report: JSON.stringify(report),
    at,
  });
  return {
    id,
    at: at.toISOString(),
    model: host.model.label,
    descriptionHash: report.descriptionHash,
    contentHash,
    report,
    fileProblems: file.problems,
  };
}
