import { describeLoginThrottle } from '../../test/auth/login-throttle-suite';
import { closeDb, openDb, sqliteDatabase } from '../db/client';

describeLoginThrottle('sqlite', async () => {
  const db = openDb(':memory:');
  return { d: sqliteDatabase(db), close: () => closeDb(db) };
});
