/**
 * The PostgreSQL side of a store suite: one scratch database per test file (migrating is the slow part), emptied
 * with `truncate` (a SQL statement) before each test, closed after the file. Call inside the file's `describe`.
 */
import { sql } from 'drizzle-orm';
import { afterAll } from 'vitest';
import { type Database, pgDatabase } from '../../server/db/client';
import { closePgDb, openPgDb, type PgDb } from '../../server/db/pg';
import { createScratchDatabase } from '../pg-scratch';

export function scratchDatabasePerFile(
  baseUrl: string,
  prefix: string,
  truncate: string,
): () => Promise<{ d: Database; close: () => void }> {
  let pool: PgDb | undefined;
  let d: Database;
  afterAll(async () => {
    if (pool) await closePgDb(pool);
  });
  return async () => {
    if (!pool) {
      pool = await openPgDb(await createScratchDatabase(baseUrl, prefix));
      d = pgDatabase(pool);
    }
    await d.db.execute(sql.raw(truncate));
    return { d, close: () => {} };
  };
}
