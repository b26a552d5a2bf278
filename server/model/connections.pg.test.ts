import { sql } from 'drizzle-orm';
import { afterAll, describe, inject } from 'vitest';
import { describeConnectionStore } from '../../test/model/connection-store-suite';
import { createScratchDatabase } from '../../test/pg-scratch';
import { type Database, pgDatabase } from '../db/client';
import { closePgDb, openPgDb, type PgDb } from '../db/pg';

const baseUrl = inject('pgUrl');

describe.skipIf(!baseUrl)('PostgreSQL', () => {
  // One scratch database (migrating is the slow part), emptied before each test.
  let pool: PgDb | undefined;
  let d: Database;
  afterAll(async () => {
    if (pool) await closePgDb(pool);
  });
  describeConnectionStore('pg', async () => {
    if (!pool) {
      pool = await openPgDb(await createScratchDatabase(baseUrl, 'model_connections'));
      d = pgDatabase(pool);
    }
    await d.db.execute(sql.raw('TRUNCATE model_connections'));
    return { d, close: () => {} };
  });
});
