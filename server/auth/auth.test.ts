import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { describeAuth } from '../../test/auth/auth-suite';
import { closeDb, openDb, sqliteDatabase } from '../db/client';
import { accounts } from '../db/schema-auth';

describeAuth('sqlite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-auth-'));
  const db = openDb(path.join(dir, 'auth.db'));
  return {
    db,
    database: sqliteDatabase(db),
    close: () => {
      closeDb(db);
      fs.rmSync(dir, { recursive: true, force: true });
    },
    passwordHashOf: async (userId) =>
      db.select({ password: accounts.password }).from(accounts).where(eq(accounts.userId, userId)).get()?.password ??
      null,
  };
});
