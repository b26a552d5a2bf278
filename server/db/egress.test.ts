import { describeEgressRecord } from '../../test/db/egress-suite';
import { closeDb, openDb, sqliteDatabase } from './client';

describeEgressRecord('sqlite', async () => {
  const db = openDb(':memory:');
  return { d: sqliteDatabase(db), close: () => closeDb(db) };
});
