/** Stored trigger evals and description proposals (server/evals/), newest first, per skill. */
import { and, desc, eq } from 'drizzle-orm';
import { type Database, withDb } from './client';

export type TriggerCheckKind = 'trigger' | 'describe';

export interface TriggerCheckRecord {
  id: number;
  skillName: string;
  kind: TriggerCheckKind;
  descriptionHash: string;
  /** The evaluated skill's content hash; null for runs stored before it was kept. */
  contentHash: string | null;
  model: string;
  runs: number;
  /** The JSON report as stored; the caller parses it. */
  report: string;
  at: Date;
}

export async function addTriggerCheck(
  d: Database,
  row: Omit<TriggerCheckRecord, 'id' | 'kind' | 'contentHash'> &
    Partial<Pick<TriggerCheckRecord, 'kind' | 'contentHash'>>,
): Promise<number> {
  const { triggerChecks } = d.t;
  const [inserted] = await withDb(d, (db) => db.insert(triggerChecks).values(row).returning({ id: triggerChecks.id }));
  return inserted!.id;
}

export async function listTriggerChecks(
  d: Database,
  skillName: string,
  limit = 10,
  kind: TriggerCheckKind = 'trigger',
): Promise<TriggerCheckRecord[]> {
  const { triggerChecks } = d.t;
  const rows = await withDb(d, (db) =>
    db
      .select()
      .from(triggerChecks)
      .where(and(eq(triggerChecks.skillName, skillName), eq(triggerChecks.kind, kind)))
      .orderBy(desc(triggerChecks.at), desc(triggerChecks.id))
      .limit(limit),
  );
  return rows.map((r) => ({ ...r, kind: r.kind as TriggerCheckKind }));
}
