/**
 * The stored output eval runs of a skill as the page reads them. Apart from the runner (output-admin.ts), which
 * pulls in the whole turn: the skill's page needs only this.
 */

import type { Database } from '../db/client';
import type { EvalRunStatus } from '../db/eval-runs';
import { listEvalRuns } from '../db/eval-runs';
import type { OutputEvalReport } from './output';

export interface StoredOutputEval {
  id: number;
  status: EvalRunStatus;
  startedAt: string;
  finishedAt: string | null;
  model: string;
  contentHash: string;
  report: OutputEvalReport;
}

export async function storedOutputEvals(host: { db: Database }, name: string): Promise<StoredOutputEval[]> {
  return (await listEvalRuns(host.db, name)).map((r) => ({
    id: r.id,
    status: r.status,
    startedAt: r.startedAt.toISOString(),
    finishedAt: r.finishedAt?.toISOString() ?? null,
    model: r.model,
    contentHash: r.contentHash,
    report: JSON.parse(r.report) as OutputEvalReport,
  }));
}
