import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeConsentMigration, migrationsBefore } from '../../test/db/consent-migration-suite';
import { closeDb, openDb, sqliteDatabase } from '.';

const MIGRATIONS = path.resolve(import.meta.dirname, '../../drizzle');

describeConsentMigration('sqlite', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'consent-migration-')), 'chat.db');
  return {
    now: String(Date.now()),
    openBefore: async () => {
      const db = openDb(file, { migrationsFolder: migrationsBefore(MIGRATIONS, '0013_consent_subjects') });
      return {
        exec: async (statement) => {
          db.$client.exec(statement);
        },
        close: async () => closeDb(db),
      };
    },
    openAll: async () => {
      const db = openDb(file, { migrationsFolder: MIGRATIONS });
      return { d: sqliteDatabase(db), close: async () => closeDb(db) };
    },
  };
});
