import { describeConnectionStore } from '../../test/model/connection-store-suite';
import { closeDb, openDb, sqliteDatabase } from '../db/client';

// Shared with PostgreSQL (connections.pg.test.ts): a fresh in-memory database per test.
describeConnectionStore('sqlite', async () => {
  const db = openDb(':memory:');
  return { d: sqliteDatabase(db), close: () => closeDb(db) };
});
