import { sql } from 'drizzle-orm';
import { afterAll, describe, inject } from 'vitest';
import { createScratchDatabase } from '../../test/pg-scratch';
import { describeSecretStore } from '../../test/secrets/store-suite';
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
  describeSecretStore('pg', async () => {
    if (!pool) {
      pool = await openPgDb(await createScratchDatabase(baseUrl, 'secrets'));
      d = pgDatabase(pool);
    }
    await d.db.execute(sql.raw('TRUNCATE secrets, chats RESTART IDENTITY CASCADE'));
    return { d, close: () => {} };
  });
});
