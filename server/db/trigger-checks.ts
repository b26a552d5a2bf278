/** Stored trigger checks (server/authoring/trigger-check.ts), newest first, per skill. */
import { desc, eq } from 'drizzle-orm';
import type { Db } from './client';
import { triggerChecks } from './schema';

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

export function addTriggerCheck(db: Db, row: Omit<TriggerCheckRecord, 'id'>): number {
  const inserted = db.insert(triggerChecks).values(row).returning({ id: triggerChecks.id }).get();
  return inserted.id;
}

export function listTriggerChecks(db: Db, skillName: string, limit = 10): TriggerCheckRecord[] {
  return db
    .select()
    .from(triggerChecks)
    .where(eq(triggerChecks.skillName, skillName))
    .orderBy(desc(triggerChecks.at), desc(triggerChecks.id))
    .limit(limit)
    .all();
}
