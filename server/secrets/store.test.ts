import { describeSecretStore } from '../../test/secrets/store-suite';
import { closeDb, openDb, sqliteDatabase } from '../db/client';

// Shared with PostgreSQL (store.pg.test.ts): a fresh in-memory database per test.
describeSecretStore('sqlite', async () => {
  const db = openDb(':memory:');
  return { d: sqliteDatabase(db), close: () => closeDb(db) };
});
