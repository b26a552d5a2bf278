import { sql } from 'drizzle-orm';
import { afterAll, describe, inject } from 'vitest';
import { describeEgressRecord } from '../../test/db/egress-suite';
import { createScratchDatabase } from '../../test/pg-scratch';
import { type Database, pgDatabase } from './client';
import { closePgDb, openPgDb, type PgDb } from './pg';

const baseUrl = inject('pgUrl');

describe.skipIf(!baseUrl)('PostgreSQL', () => {
  let pool: PgDb | undefined;
  let d: Database;
  afterAll(async () => {
    if (pool) await closePgDb(pool);
  });
  describeEgressRecord('pg', async () => {
    if (!pool) {
      pool = await openPgDb(await createScratchDatabase(baseUrl, 'egress'));
      d = pgDatabase(pool);
    }
    await d.db.execute(sql.raw('TRUNCATE chats, egress_events RESTART IDENTITY CASCADE'));
    return { d, close: () => {} };
  });
});
