import { describeMcpConnectionStore } from '../../test/mcp/connection-store-suite';
import { closeDb, openDb, sqliteDatabase } from '../db/client';

// Shared with PostgreSQL (oauth-store.pg.test.ts): a fresh in-memory database per test.
describeMcpConnectionStore('sqlite', async () => {
  const db = openDb(':memory:');
  return { d: sqliteDatabase(db), close: () => closeDb(db) };
});
