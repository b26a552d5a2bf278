/** `npm run user` as an operator runs it: each test spawns bin/user.ts through tsx against a temp SQLite file. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APIError } from 'better-auth/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuth } from '../server/auth/auth';
import type { UserSummary } from '../server/auth/users';
import { closeDb, openDb, sqliteDatabase } from '../server/db/client';

const PROJECT = path.resolve(import.meta.dirname, '..');
const TSX = path.join(PROJECT, 'node_modules', '.bin', 'tsx');
let tmp: string;
let dbFile: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'user-cli-'));
  dbFile = path.join(tmp, 'data', 'skillchat.db');
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function user(args: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [path.join(PROJECT, 'bin', 'user.ts'), ...args], {
      cwd: tmp,
      env: { ...process.env, SKILLCHAT_DB: dbFile, DATABASE_URL: '', SKILLCHAT_AUTH_SECRET: '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** Signs in against the CLI's database file, in this process. */
async function signsIn(email: string, password: string): Promise<boolean | number> {
  const db = openDb(dbFile, { recoverStreaming: false });
  try {
    const auth = createAuth({
      db: sqliteDatabase(db),
      secret: 'x'.repeat(40),
      baseURL: 'http://127.0.0.1:3000',
      logLevel: 'error',
    });
    await auth.api.signInEmail({ body: { email, password } });
    return true;
  } catch (error) {
    if (error instanceof APIError) return error.statusCode;
    throw error;
  } finally {
    closeDb(db);
  }
}

// Each spawn starts tsx and better-auth (seconds on a busy machine): generous per-test time.
describe('npm run user', { timeout: 180_000 }, () => {
  it('adds users with the password from stdin, and lists them', async () => {
    const added = await user(['add', 'Root@Example.test', '--role', 'admin'], 'first admin pw\n');
    expect(added).toMatchObject({ code: 0, stdout: 'Added root@example.test (admin)\n' });
    expect((await user(['add', 'mia@example.test'], 'mia password\n')).code).toBe(0);

    const list = await user(['list', '--json']);
    const users = JSON.parse(list.stdout) as UserSummary[];
    expect(users.map((u) => [u.email, u.role, u.disabled])).toEqual([
      ['mia@example.test', 'member', false],
      ['root@example.test', 'admin', false],
    ]);
    expect(await signsIn('mia@example.test', 'mia password')).toBe(true);
    // The secret for cookies was created beside the database, private to the owner.
    expect(fs.statSync(path.join(tmp, 'data', 'auth-secret')).mode & 0o077).toBe(0);
  });

  it('changes a password, disables, enables, changes a role and deletes', async () => {
    expect((await user(['passwd', 'mia@example.test'], 'mia new password\n')).code).toBe(0);
    expect(await signsIn('mia@example.test', 'mia password')).toBe(401);
    expect(await signsIn('mia@example.test', 'mia new password')).toBe(true);

    expect((await user(['disable', 'mia@example.test'])).code).toBe(0);
    expect(await signsIn('mia@example.test', 'mia new password')).toBe(403);
    expect((await user(['list'])).stdout).toContain('mia@example.test\tmember\tdisabled');
    expect((await user(['enable', 'mia@example.test'])).code).toBe(0);
    expect(await signsIn('mia@example.test', 'mia new password')).toBe(true);

    expect((await user(['role', 'mia@example.test', 'admin'])).code).toBe(0);
    expect((await user(['delete', 'root@example.test'])).code).toBe(0);
    expect((await user(['list'])).stdout).toBe('mia@example.test\tadmin\n');
  });

  it('explains what is wrong, with exit 1 for refused operations and 2 for misuse', async () => {
    expect(await user(['add', 'short@example.test'], 'short\n')).toMatchObject({
      code: 1,
      stderr: 'user: The password must be at least 8 characters\n',
    });
    expect(await user(['add', 'mia@example.test'], 'long enough pw\n')).toMatchObject({
      code: 1,
      stderr: 'user: A user with the email mia@example.test exists\n',
    });
    expect(await user(['delete', 'mia@example.test'])).toMatchObject({
      code: 1,
      stderr: 'user: mia@example.test is the last enabled admin: add another admin first\n',
    });
    expect(await user(['disable', 'ghost@example.test'])).toMatchObject({
      code: 1,
      stderr: 'user: No user with the email ghost@example.test\n',
    });
    const badRole = await user(['add', 'x@example.test', '--role', 'owner'], 'long enough pw\n');
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toMatch(/^user: Unknown role "owner": use admin or member\n/);
    expect((await user(['frobnicate'])).code).toBe(2);
    expect((await user(['list', '--bogus'])).code).toBe(2);
  });
});
