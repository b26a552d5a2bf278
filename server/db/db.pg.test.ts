import { sql } from 'drizzle-orm';
import { afterAll, describe, inject } from 'vitest';
import { describeDb } from '../../test/db/db-suite';
import { describeLeases } from '../../test/db/lease-suite';
import { describeSearch } from '../../test/db/search-suite';
import { describeTurnWrites } from '../../test/db/turn-suite';
import { createScratchDatabase } from '../../test/pg-scratch';
import { type Database, pgDatabase } from './client';
import { closePgDb, openPgDb, type PgDb } from './pg';

const baseUrl = inject('pgUrl');

describe.skipIf(!baseUrl)('PostgreSQL', () => {
  // One scratch database (migrating is the slow part), emptied before each test.
  let pool: PgDb | undefined;
  let d: Database;
  afterAll(async () => {
    if (pool) await closePgDb(pool);
  });
  const fresh = async () => {
    if (!pool) {
      pool = await openPgDb(await createScratchDatabase(baseUrl, 'queries'));
      d = pgDatabase(pool);
    }
    await d.db.execute(
      sql.raw(
        'TRUNCATE chats, messages, activations, activation_events, permission_grants, permission_decisions, script_runs, skill_modes, trigger_checks, user_skill_prefs RESTART IDENTITY CASCADE',
      ),
    );
    return { d, close: () => {} };
  };
  describeDb('pg', fresh);
  describeSearch('pg', fresh);
  describeLeases('pg', fresh);
  describeTurnWrites('pg', fresh);
});
