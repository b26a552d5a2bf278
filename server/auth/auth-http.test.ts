/** The HTTP handler the app will mount at `/api/auth/*`: the same hooks, limits and cookies as `auth.api`. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, type Db, openDb, sqliteDatabase } from '../db/client';
import { type Auth, createAuth } from './auth';
import { addUser } from './users';

const ORIGIN = 'http://127.0.0.1:3000';
let dir: string;
let db: Db;
let auth: Auth;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-auth-http-'));
  db = openDb(path.join(dir, 'auth.db'));
  auth = createAuth({
    db: sqliteDatabase(db),
    secret: 's'.repeat(40),
    baseURL: ORIGIN,
    logLevel: 'error',
    throttle: {
      account: { max: 2, windowMs: 60_000 },
      client: { max: 10, windowMs: 60_000 },
      knownClientMs: 60_000,
    },
  });
  await addUser(auth, { email: 'eve@example.test', password: 'eve password', role: 'member' });
});
afterAll(() => {
  closeDb(db);
  fs.rmSync(dir, { recursive: true, force: true });
});

const post = (body: unknown, cookie?: string) =>
  auth.handler(
    new Request(`${ORIGIN}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: ORIGIN, ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(body),
    }),
  );

describe('sign-in over HTTP', () => {
  it('sets an HttpOnly SameSite=Lax session cookie, then throttles the account with Retry-After', async () => {
    const ok = await post({ email: 'eve@example.test', password: 'eve password' });
    expect(ok.status).toBe(200);
    const session = ok.headers.getSetCookie().find((c) => c.startsWith('skillchat.session_token='));
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);
    expect(session).not.toMatch(/Secure/i);

    for (let i = 0; i < 2; i++) expect((await post({ email: 'eve@example.test', password: `x${i}` })).status).toBe(401);
    const locked = await post({ email: 'eve@example.test', password: 'eve password' });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await locked.json()).toMatchObject({ code: 'rate_limited:account' });
  });

  it('refuses sign-up: accounts are created by admins only', async () => {
    const response = await auth.handler(
      new Request(`${ORIGIN}/api/auth/sign-up/email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: ORIGIN },
        body: JSON.stringify({ email: 'new@example.test', password: 'new password', name: 'New' }),
      }),
    );
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });
});
