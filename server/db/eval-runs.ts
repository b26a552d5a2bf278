/** Stored output eval runs (server/evals/output.ts), newest first, per skill; the report is JSON the caller parses. */
import { and, desc, eq, ne } from 'drizzle-orm';
import { type Database, withDb } from './client';

export type EvalRunStatus = 'running' | 'done' | 'stopped' | 'error';

export interface EvalRunRecord {
  id: number;
  skillName: string;
  contentHash: string;
  userId: string;
  model: string;
  status: EvalRunStatus;
  report: string;
  startedAt: Date;
  finishedAt: Date | null;
}

export async function addEvalRun(
  d: Database,
  row: Omit<EvalRunRecord, 'id' | 'finishedAt' | 'status'>,
): Promise<number> {
  const { skillEvalRuns } = d.t;
  const [inserted] = await withDb(d, (db) =>
    db
      .insert(skillEvalRuns)
      .values({ ...row, status: 'running' })
      .returning({ id: skillEvalRuns.id }),
  );
  return inserted!.id;
}

/** The report as it grows; with a final status, the run's end. */
export async function updateEvalRun(
  d: Database,
  id: number,
  change: { report: string; status?: Exclude<EvalRunStatus, 'running'> },
): Promise<void> {
  const { skillEvalRuns } = d.t;
  const values = change.status
    ? { report: change.report, status: change.status, finishedAt: new Date() }
    : { report: change.report };
  await withDb(d, (db) => db.update(skillEvalRuns).set(values).where(eq(skillEvalRuns.id, id)));
}

export async function listEvalRuns(d: Database, skillName: string, limit = 10): Promise<EvalRunRecord[]> {
  const { skillEvalRuns } = d.t;
  return withDb(d, (db) =>
    db
      .select()
      .from(skillEvalRuns)
      .where(eq(skillEvalRuns.skillName, skillName))
      .orderBy(desc(skillEvalRuns.startedAt), desc(skillEvalRuns.id))
      .limit(limit),
  ) as Promise<EvalRunRecord[]>;
}

/** The newest finished run of the skill with another content hash: what "earlier" compares with. */
export async function lastEvalRunOtherVersion(
  d: Database,
  skillName: string,
  contentHash: string,
): Promise<EvalRunRecord | null> {
  const { skillEvalRuns } = d.t;
  const [row] = await withDb(d, (db) =>
    db
      .select()
      .from(skillEvalRuns)
      .where(
        and(
          eq(skillEvalRuns.skillName, skillName),
          ne(skillEvalRuns.contentHash, contentHash),
          eq(skillEvalRuns.status, 'done'),
        ),
      )
      .orderBy(desc(skillEvalRuns.startedAt), desc(skillEvalRuns.id))
      .limit(1),
  );
  return (row as EvalRunRecord | undefined) ?? null;
}

/** A person's runs left `running` by a process that stopped: marked `stopped` when they start the next one. */
export async function endAbandonedEvalRuns(d: Database, skillName: string, userId: string): Promise<void> {
  const { skillEvalRuns } = d.t;
  await withDb(d, (db) =>
    db
      .update(skillEvalRuns)
      .set({ status: 'stopped', finishedAt: new Date() })
      .where(
        and(
          eq(skillEvalRuns.skillName, skillName),
          eq(skillEvalRuns.userId, userId),
          eq(skillEvalRuns.status, 'running'),
        ),
      ),
  );
}
