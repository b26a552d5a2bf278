import { eq } from 'drizzle-orm';
import { describe, inject } from 'vitest';
import { describeAuth } from '../../test/auth/auth-suite';
import { createScratchDatabase } from '../../test/pg-scratch';
import { pgDatabase } from '../db/client';
import { closePgDb, openPgDb } from '../db/pg';
import { accounts } from '../db/schema-auth-pg';

const baseUrl = inject('pgUrl');

describe.skipIf(!baseUrl)('PostgreSQL', () => {
  describeAuth('pg', async () => {
    const db = await openPgDb(await createScratchDatabase(baseUrl, 'auth'));
    return {
      db,
      database: pgDatabase(db),
      close: () => closePgDb(db),
      passwordHashOf: async (userId) =>
        (await db.select({ password: accounts.password }).from(accounts).where(eq(accounts.userId, userId)))[0]
          ?.password ?? null,
    };
  });
});
