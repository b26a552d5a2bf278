import { describeEvalRuns } from '../../test/db/eval-runs-suite';
import { closeDb, openDb, sqliteDatabase } from './client';

describeEvalRuns('sqlite', async () => {
  const db = openDb(':memory:');
  return { d: sqliteDatabase(db), close: () => closeDb(db) };
});
