/** Stored trigger checks (server/authoring/trigger-check.ts), newest first, per skill. */
import { desc, eq } from 'drizzle-orm';
import { type Database, withDb } from './client';

export interface TriggerCheckRecord {
  id: number;
  skillName: string;
  descriptionHash: string;
  model: string;
  runs: number;
  /** The JSON report as stored; the caller parses it. */
  report: string;
  at: Date;
}

export async function addTriggerCheck(d: Database, row: Omit<TriggerCheckRecord, 'id'>): Promise<number> {
  const { triggerChecks } = d.t;
  const [inserted] = await withDb(d, (db) => db.insert(triggerChecks).values(row).returning({ id: triggerChecks.id }));
  return inserted!.id;
}

export async function listTriggerChecks(d: Database, skillName: string, limit = 10): Promise<TriggerCheckRecord[]> {
  const { triggerChecks } = d.t;
  return withDb(d, (db) =>
    db
      .select()
      .from(triggerChecks)
      .where(eq(triggerChecks.skillName, skillName))
      .orderBy(desc(triggerChecks.at), desc(triggerChecks.id))
      .limit(limit),
  );
}
