import path from 'node:path';
import { describe, inject } from 'vitest';
import { describeConsentMigration, migrationsBefore } from '../../test/db/consent-migration-suite';
import { createScratchDatabase } from '../../test/pg-scratch';
import { pgDatabase } from './client';
import { closePgDb, openPgDb } from './pg';

const baseUrl = inject('pgUrl');
const MIGRATIONS = path.resolve(import.meta.dirname, '../../drizzle-pg');

describe.skipIf(!baseUrl)('PostgreSQL', () => {
  let url: string | undefined;
  const database = async () => {
    url ??= await createScratchDatabase(baseUrl, 'consent_migration');
    return url;
  };
  describeConsentMigration('pg', () => ({
    now: 'now()',
    openBefore: async () => {
      const db = await openPgDb(await database(), {
        migrationsFolder: migrationsBefore(MIGRATIONS, '0010_consent_subjects'),
      });
      return {
        exec: async (statement) => {
          await db.$client.query(statement);
        },
        close: () => closePgDb(db),
      };
    },
    openAll: async () => {
      const db = await openPgDb(await database(), { migrationsFolder: MIGRATIONS });
      return { d: pgDatabase(db), close: () => closePgDb(db) };
    },
  }));
});
