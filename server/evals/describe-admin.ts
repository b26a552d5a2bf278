/**
 * "Improve the description" as /admin runs it: the same queries and setting as the trigger eval, the proposals
 * stored (kind `describe`) per skill content hash, so the page shows the last ones. Saving one is the editor's PUT
 * of the proposal's `skillFile`, never done here.
 */
import { skillContentHash } from '../access/content-hash';
import type { App } from '../app';
import { addTriggerCheck, listTriggerChecks } from '../db';
import { AppError } from '../errors';
import { DEFAULT_PROPOSALS, type DescribeReport, MAX_PROPOSALS, proposeDescriptions } from './describe';
import { readQueriesFile } from './queries-file';
import { descriptionHash, MAX_PROMPTS, type TriggerPrompt } from './trigger';
import { checkRuns, type EvalHost, evalSetting, evaluatedSkill, mergePrompts } from './trigger-admin';

export interface StoredDescribe {
  id: number;
  at: string;
  model: string;
  descriptionHash: string;
  contentHash: string | null;
  report: DescribeReport;
}

export async function lastDescribe(host: Pick<App, 'db'>, name: string): Promise<StoredDescribe | null> {
  const [r] = await listTriggerChecks(host.db, name, 1, 'describe');
  if (!r) return null;
  return {
    id: r.id,
    at: r.at.toISOString(),
    model: r.model,
    descriptionHash: r.descriptionHash,
    contentHash: r.contentHash,
    report: JSON.parse(r.report) as DescribeReport,
  };
}

export async function runStoredDescribe(
  host: EvalHost,
  name: string,
  typed: TriggerPrompt[],
  runs: number,
  count = DEFAULT_PROPOSALS,
): Promise<StoredDescribe> {
  const skill = await evaluatedSkill(host, name);
  if (typed.length > MAX_PROMPTS) throw new AppError('bad_request:describe', `At most ${MAX_PROMPTS} typed queries`);
  checkRuns(runs);
  if (!Number.isInteger(count) || count < 1 || count > MAX_PROPOSALS) {
    throw new AppError('bad_request:describe', `Ask for 1-${MAX_PROPOSALS} proposals`);
  }
  const prompts = mergePrompts(await readQueriesFile(skill), typed);
  const wanted = prompts.filter((p) => p.shouldTrigger).length;
  if (wanted === 0 || wanted === prompts.length) {
    throw new AppError(
      'bad_request:describe',
      'Improving the description needs queries that should trigger and queries that should not',
    );
  }
  const report = await proposeDescriptions(await evalSetting(host), skill, prompts, { runs, count });
  const at = new Date();
  const contentHash = await skillContentHash(skill);
  const hash = descriptionHash(skill.description);
  const id = await addTriggerCheck(host.db, {
    skillName: skill.name,
    kind: 'describe',
    descriptionHash: hash,
    contentHash,
    model: host.model.label,
    runs: report.runs,
    report: JSON.stringify(report),
    at,
  });
  return { id, at: at.toISOString(), model: host.model.label, descriptionHash: hash, contentHash, report };
}
