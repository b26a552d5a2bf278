import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';

// The process-wide connection lives on globalThis and SKILLCHAT_DB is process state: this file owns both
// (vitest runs each test file in its own process with `pool: 'forks'`).
describe('getDb', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-getdb-'));
  const dbFile = path.join(dir, 'data', 'skillchat.db');

  afterEach(async () => {
    const { closeDb } = await import('./index');
    closeDb();
    vi.unstubAllEnvs();
  });

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('creates nothing at import; opens the file once on first use', async () => {
    vi.resetModules();
    const db = await import('./index');
    expect(fs.existsSync(dbFile)).toBe(false);

    const first = db.getDb(dbFile);
    expect(fs.existsSync(dbFile)).toBe(true);
    expect(db.getDb(dbFile)).toBe(first);
    expect(() => db.getDb(path.join(dir, 'other.db'))).toThrow(/already open/);

    await db.createChat({ id: 'c1' }, db.sqliteDatabase(first));
    expect((await db.listChats({}, db.sqliteDatabase(first))).map((c) => c.id)).toEqual(['c1']);

    // Survives a module reload (Next dev): the connection is on globalThis, not in the module.
    vi.resetModules();
    const reloaded = await import('./index');
    expect(reloaded.getDb(dbFile)).toBe(first);

    reloaded.closeDb();
    expect(first.$client.open).toBe(false);
    const again = reloaded.getDb(dbFile);
    expect(again).not.toBe(first);
    expect((await reloaded.getChat('c1', reloaded.sqliteDatabase(again)))?.id).toBe('c1');
  });

  it('finds the migrations from another working directory', async () => {
    const { resolveMigrationsFolder } = await import('./client');
    const cwd = process.cwd();
    process.chdir(os.tmpdir());
    try {
      expect(resolveMigrationsFolder()).toBe(path.join(cwd, 'drizzle'));
    } finally {
      process.chdir(cwd);
    }
  });
});
