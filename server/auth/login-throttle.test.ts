import { closeDb, openDb, sqliteDatabase } from '../db/client';
import { describeLoginThrottle } from '../../test/auth/login-throttle-suite';

describeLoginThrottle('sqlite', async () => {
  const db = openDb(':memory:');
  return { d: sqliteDatabase(db), close: () => closeDb(db) };
});
