/**
 * requireUser / requireAdmin over a real better-auth instance built the way the app builds it (createAppAuth: the
 * per-request base URL from the allowed hosts), signing in over HTTP as a browser would.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, type Db, openDb, sqliteDatabase } from '../db/client';
import { LOCAL_USER_ID } from '../db/local-user';
import { isAppError } from '../errors';
import { buildExposurePolicy } from '../security/exposure';
import { createUserFromBody, listUserRows, setupFromBody, updateUserFromBody } from './admin-api';
import { announceSetup } from './announce';
import { authHostPatterns, createAppAuth } from './app-auth';
import type { Auth } from './auth';
import { currentUserIn, LOCAL_USER, requireAdminIn, requireUserIn, type SessionContext } from './roles';
import { addUser, disableUser } from './users';

const ORIGIN = 'http://chat.lan:3000';
let dir: string;
let db: Db;
let auth: Auth;
let exposed: SessionContext;

const policy = buildExposurePolicy({
  env: { __NEXT_PRIVATE_ORIGIN: 'http://localhost:3000' },
  allowedHosts: ['chat.lan'],
  interfaceAddresses: ['192.168.1.5'],
});

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-access-'));
  db = openDb(path.join(dir, 'skillchat.db'));
  auth = createAppAuth({ db: sqliteDatabase(db), databasePath: path.join(dir, 'skillchat.db'), policy, env: {} });
  exposed = { exposed: true, auth };
  await addUser(auth, { email: 'ada@example.test', password: 'ada password', role: 'admin' });
  await addUser(auth, { email: 'max@example.test', password: 'max password', role: 'member' });
});
afterAll(() => {
  closeDb(db);
  fs.rmSync(dir, { recursive: true, force: true });
});

async function signIn(email: string, password: string, origin = ORIGIN): Promise<Response> {
  const host = new URL(origin).host;
  return auth.handler(
    new Request(`${origin}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin, host },
      body: JSON.stringify({ email, password }),
    }),
  );
}

async function cookieOf(email: string, password: string, origin = ORIGIN): Promise<Headers> {
  const response = await signIn(email, password, origin);
  expect(response.status).toBe(200);
  const session = response.headers.getSetCookie().find((c) => c.startsWith('skillchat.session_token='));
  return new Headers({ cookie: session!.split(';')[0]!, host: new URL(origin).host });
}

async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: string }> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!isAppError(error)) throw new Error(`expected an AppError, got ${String(error)}`);
  return { status: error.status, code: error.code };
}

describe('authHostPatterns', () => {
  it('lets a host without a port match any port, and keeps a given port', () => {
    expect(authHostPatterns([{ hostname: 'chat.lan', port: null }])).toEqual(['chat.lan', 'chat.lan:*']);
    expect(authHostPatterns([{ hostname: 'x.lan', port: '8443' }])).toEqual(['x.lan:8443']);
  });
});

describe('who is asking', () => {
  it('is the local admin on a loopback server, without asking better-auth', async () => {
    const loopback: SessionContext = {
      exposed: false,
      auth: {
        api: {
          getSession: () => {
            throw new Error('not called');
          },
        },
      },
    };
    expect(await requireAdminIn(loopback, new Headers())).toEqual(LOCAL_USER);
    expect(LOCAL_USER).toMatchObject({ id: LOCAL_USER_ID, role: 'admin' });
  });

  it('is the signed-in account on an exposed server, under every allowed name', async () => {
    for (const origin of [ORIGIN, 'http://192.168.1.5:3000', 'http://localhost:3000']) {
      const headers = await cookieOf('ada@example.test', 'ada password', origin);
      expect(await requireAdminIn(exposed, headers)).toMatchObject({ email: 'ada@example.test', role: 'admin' });
    }
    const request = new Request(`${ORIGIN}/api/chats`, { headers: await cookieOf('max@example.test', 'max password') });
    expect(await requireUserIn(exposed, request)).toMatchObject({ email: 'max@example.test', role: 'member' });
  });

  it('is nobody without a valid session: 401', async () => {
    expect(await currentUserIn(exposed, new Headers({ host: 'chat.lan:3000' }))).toBeNull();
    const forged = new Headers({ host: 'chat.lan:3000', cookie: 'skillchat.session_token=forged.value' });
    expect(await refusal(requireUserIn(exposed, forged))).toEqual({ status: 401, code: 'unauthorized:session' });
  });

  it('gives a member 403 on admin checks', async () => {
    const headers = await cookieOf('max@example.test', 'max password');
    expect(await refusal(requireAdminIn(exposed, headers))).toEqual({ status: 403, code: 'forbidden:admin' });
  });

  it('ends with the account: a disabled person is signed out', async () => {
    await addUser(auth, { email: 'tim@example.test', password: 'tim password', role: 'member' });
    const headers = await cookieOf('tim@example.test', 'tim password');
    expect(await requireUserIn(exposed, headers)).toMatchObject({ email: 'tim@example.test' });
    await disableUser(auth, 'tim@example.test');
    expect(await refusal(requireUserIn(exposed, headers))).toMatchObject({ status: 401 });
  });
});

describe('the admin API bodies', () => {
  it('lists each account with its own usage, and 0 for an account that has none', async () => {
    const before = await listUserRows(auth);
    const max = before.find((u) => u.email === 'max@example.test');
    const rows = await listUserRows(auth, [
      { userId: max!.id, activations: 3, scriptRuns: 1 },
      { userId: LOCAL_USER_ID, activations: 9, scriptRuns: 9 },
    ]);
    const usage = Object.fromEntries(rows.map((u) => [u.email, [u.activations, u.scriptRuns]]));
    expect(usage['max@example.test']).toEqual([3, 1]);
    expect(usage['ada@example.test']).toEqual([0, 0]);
  });

  it('creates accounts and words refusals as 4xx', async () => {
    expect(
      await createUserFromBody(auth, { email: 'new@example.test', password: 'new password', role: 'member' }),
    ).toMatchObject({ email: 'new@example.test', role: 'member', disabled: false });
    expect(await refusal(createUserFromBody(auth, { email: 'new@example.test', password: 'x'.repeat(9) }))).toEqual({
      status: 409,
      code: 'conflict:user',
    });
    expect(await refusal(createUserFromBody(auth, { email: 'a@example.test', password: 'short' }))).toMatchObject({
      status: 400,
    });
    expect(
      await refusal(createUserFromBody(auth, { email: 'b@example.test', password: 'long enough', role: 'root' })),
    ).toMatchObject({ status: 400 });
    expect(await refusal(updateUserFromBody(auth, 'nobody@example.test', { disabled: true }))).toMatchObject({
      status: 404,
    });
    expect(await refusal(updateUserFromBody(auth, 'ada@example.test', {}))).toMatchObject({ status: 400 });
  });

  it('never demotes or disables the last enabled admin', async () => {
    expect(await refusal(updateUserFromBody(auth, 'ada@example.test', { role: 'member' }))).toEqual({
      status: 409,
      code: 'conflict:last_admin',
    });
    expect(await refusal(updateUserFromBody(auth, 'ada@example.test', { disabled: true }))).toMatchObject({
      status: 409,
    });
  });
});

describe('first-run setup', () => {
  it('prints a token that creates the first admin once; then setup is done', async () => {
    const fresh = path.join(dir, 'fresh.db');
    const freshDb = openDb(fresh);
    try {
      const freshAuth = createAppAuth({ db: sqliteDatabase(freshDb), databasePath: fresh, policy, env: {} });
      const lines: string[] = [];
      const token = await announceSetup(freshAuth, (line) => lines.push(line));
      expect(token).toBeTruthy();
      expect(lines.join('\n')).toContain(token!);
      expect(lines.join('\n')).toContain('npm run user -- add EMAIL --role admin');
      const body = { token, email: 'root@example.test', password: 'root password' };
      expect(await refusal(setupFromBody(freshAuth, { ...body, token: 'wrong' }))).toMatchObject({ status: 403 });
      expect(await setupFromBody(freshAuth, body)).toMatchObject({ email: 'root@example.test', role: 'admin' });
      expect(await refusal(setupFromBody(freshAuth, body))).toEqual({ status: 409, code: 'conflict:setup_done' });
      expect(await announceSetup(freshAuth, () => {})).toBeNull();
    } finally {
      closeDb(freshDb);
    }
  });
});

describe('the /api/auth handler', () => {
  it("answers failures as the app's JSON errors, keeping cookies and Retry-After", async () => {
    const { handleAuthRequest } = await import('./handler');
    const wrong = await handleAuthRequest(
      auth,
      new Request(`${ORIGIN}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: ORIGIN, host: 'chat.lan:3000' },
        body: JSON.stringify({ email: 'ada@example.test', password: 'wrong password' }),
      }),
    );
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({
      error: expect.any(String),
      code: 'unauthorized:invalid_email_or_password',
    });
    const missing = await handleAuthRequest(
      auth,
      new Request(`${ORIGIN}/api/auth/no-such-thing`, { headers: { host: 'chat.lan:3000' } }),
    );
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'No such sign-in endpoint', code: 'not_found:auth' });
    const ok = await handleAuthRequest(
      auth,
      new Request(`${ORIGIN}/api/auth/sign-in/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: ORIGIN, host: 'chat.lan:3000' },
        body: JSON.stringify({ email: 'ada@example.test', password: 'ada password' }),
      }),
    );
    expect(ok.status).toBe(200);
    expect(ok.headers.getSetCookie().some((c) => c.startsWith('skillchat.session_token='))).toBe(true);
  });
});
