/**
 * Output evals as the skill's page and the CLI run them: the skill and its cases read, the run stored (per content
 * hash, its report written as runs finish), one eval at a time per author, stoppable from any request.
 */
import { skillContentHash } from '../access/content-hash';
import type { TurnApp } from '../chat/turn';
import type { Asker } from '../chat/turn/deps';
import { addEvalRun, endAbandonedEvalRuns, lastEvalRunOtherVersion, updateEvalRun } from '../db';
import type { EvalRunStatus } from '../db/eval-runs';
import { AppError } from '../errors';
import type { SkillRegistry } from '../skills/registry';
import type { Skill } from '../skills/types';
import { CASES_FILE, readCasesFile } from './cases-file';
import { MAX_EVAL_RUNS, type OutputEvalReport, runOutputEvals } from './output';
import type { StoredOutputEval } from './output-runs';
import type { RunningEvals } from './running';

export { type StoredOutputEval, storedOutputEvals } from './output-runs';

export type EvalHost = TurnApp & { registry: Pick<SkillRegistry, 'current' | 'matcher' | 'get'>; evals: RunningEvals };

/** Whether the author has an eval running in this process, and of which skill. */
export function runningOutputEval(host: Pick<EvalHost, 'evals'>, userId: string): string | null {
  return host.evals.get(userId)?.skill ?? null;
}

/** Stops the author's running eval; false when none runs. */
export function stopOutputEval(host: Pick<EvalHost, 'evals'>, userId: string): boolean {
  const entry = host.evals.get(userId);
  if (!entry) return false;
  entry.controller.abort();
  return true;
}

async function casesOf(skill: Skill) {
  const file = await readCasesFile(skill.dir);
  if (!file) throw new AppError('bad_request:evals', `Skill "${skill.name}" has no ${CASES_FILE}`);
  if (file.cases.length === 0) {
    throw new AppError(
      'bad_request:evals',
      `${CASES_FILE} of "${skill.name}" has no usable case${file.problems.length ? `: ${file.problems[0]}` : ''}`,
    );
  }
  return file;
}

export interface StartedOutputEval {
  id: number;
  /** Resolves with the final report when the eval ends (stopped or not); never rejects. */
  done: Promise<StoredOutputEval>;
}

/**
 * Starts the skill's output evals for `userId` and returns at once with the stored run's id; `done` resolves when it
 * ends. 409 while the author has one running; 400 when the skill has no usable cases.
 */
export async function startOutputEval(
  host: EvalHost,
  name: string,
  options: { userId: string; runs: number; asker?: Asker; keepChats?: boolean },
): Promise<StartedOutputEval> {
  if (!Number.isInteger(options.runs) || options.runs < 1 || options.runs > MAX_EVAL_RUNS) {
    throw new AppError('bad_request:evals', `Runs per case must be 1-${MAX_EVAL_RUNS}`);
  }
  const skill = await host.registry.get(name);
  if (!skill) throw new AppError('not_found:skill', `Skill "${name}" not found`);
  const file = await casesOf(skill);
  const running = host.evals;
  const busy = running.get(options.userId);
  if (busy) {
    throw new AppError('conflict:evals', `Your output evals of "${busy.skill}" are still running; stop them first`);
  }
  const controller = new AbortController();
  running.set(options.userId, { controller, skill: skill.name });
  try {
    const contentHash = await skillContentHash(skill);
    const { choice } = await host.models.choose(null);
    await endAbandonedEvalRuns(host.db, skill.name, options.userId);
    const earlierRow = await lastEvalRunOtherVersion(host.db, skill.name, contentHash);
    const earlierArm = earlierRow
      ? (JSON.parse(earlierRow.report) as OutputEvalReport).arms.find((a) => a.arm === 'with')
      : undefined;
    const base = {
      contentHash,
      model: choice.label,
      problems: file.problems,
      earlier:
        earlierRow && earlierArm
          ? {
              runId: earlierRow.id,
              contentHash: earlierRow.contentHash,
              at: earlierRow.startedAt.toISOString(),
              arm: earlierArm,
            }
          : null,
    };
    const empty: OutputEvalReport = {
      ...base,
      skill: skill.name,
      runsPerCase: options.runs,
      cases: file.cases.map((c) => ({ id: c.id, prompt: c.prompt })),
      arms: [],
      runs: [],
    };
    const startedAt = new Date();
    const id = await addEvalRun(host.db, {
      skillName: skill.name,
      contentHash,
      userId: options.userId,
      model: choice.label,
      report: JSON.stringify(empty),
      startedAt,
    });
    const finish = async (report: OutputEvalReport, status: Exclude<EvalRunStatus, 'running'>) => {
      await updateEvalRun(host.db, id, { report: JSON.stringify(report), status }).catch(() => {});
      return {
        id,
        status,
        startedAt: startedAt.toISOString(),
        finishedAt: new Date().toISOString(),
        model: choice.label,
        contentHash,
        report,
      } satisfies StoredOutputEval;
    };
    let last = empty;
    const done = runOutputEvals(host, skill, file.cases, base, {
      userId: options.userId,
      runs: options.runs,
      signal: controller.signal,
      ...(options.asker ? { asker: options.asker } : {}),
      ...(options.keepChats ? { keepChats: true } : {}),
      onProgress: async (report) => {
        last = report;
        await updateEvalRun(host.db, id, { report: JSON.stringify(report) }).catch(() => {});
      },
    })
      .then((report) => finish(report, controller.signal.aborted ? 'stopped' : 'done'))
      .catch((error: unknown) => {
        console.warn('[skillchat] output evals failed', error);
        return finish(last, 'error');
      })
      .finally(() => {
        if (running.get(options.userId)?.controller === controller) running.delete(options.userId);
      });
    return { id, done };
  } catch (error) {
    running.delete(options.userId);
    throw error;
  }
}
