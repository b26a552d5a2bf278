/**
 * The account behaviour both databases must show: `auth.test.ts` runs it on SQLite, `auth.pg.test.ts` on a
 * scratch PostgreSQL. `open` returns a migrated drizzle database and a function that closes it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APIError } from 'better-auth/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount } from '../../server/auth/account-data';
import { type AuthDialect, createAuth } from '../../server/auth/auth';
import { DEVICE_COOKIE } from '../../server/auth/client-key';
import { createFirstAdmin, issueSetupToken, needsFirstAdmin } from '../../server/auth/first-admin';
import { addUser, deleteUser, disableUser, listUsers, setPassword } from '../../server/auth/users';
import { createRunningTurns } from '../../server/chat/running/active-turns';
import type { Database } from '../../server/db';
import { createChat, listChats } from '../../server/db/chats';
import { personalSkillsRoot } from '../../server/skills/personal-root';
import { ensureWorkspace } from '../../server/workspace/workspace';

export interface OpenedDb {
  db: object;
  /** The same database as the app's query layer sees it (chats, messages). */
  database: Database;
  close(): Promise<void> | void;
  /** The stored credential hash of a user, read with the dialect's own driver. */
  passwordHashOf(userId: string): Promise<string | null>;
}

const SECRET = 'test-secret-test-secret-test-secret-0123456789';

function cookieHeader(setCookies: string[]): string {
  return setCookies.map((c) => c.split(';')[0]).join('; ');
}

function setCookiesOf(headers: Headers): string[] {
  return headers.getSetCookie();
}

async function rejection(promise: Promise<unknown>): Promise<APIError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof APIError) return error;
    throw error;
  }
  throw new Error('expected the call to be refused');
}

export function describeAuth(dialect: AuthDialect, open: () => Promise<OpenedDb>): void {
  describeFirstAdmin(dialect, open);
  describe(`accounts on ${dialect}`, () => {
    let opened: OpenedDb;
    let auth: ReturnType<typeof createAuth>;

    beforeAll(async () => {
      opened = await open();
      auth = createAuth({
        db: opened.database,
        secret: SECRET,
        baseURL: 'http://127.0.0.1:3000',
        logLevel: 'error',
        // Small limits so the test needs few (slow, scrypt) attempts.
        throttle: {
          account: { max: 3, windowMs: 60_000 },
          client: { max: 4, windowMs: 60_000 },
          knownClientMs: 3600_000,
        },
      });
    });
    afterAll(async () => {
      await opened?.close();
    });

    const signIn = (email: string, password: string, cookie?: string) =>
      auth.api.signInEmail({
        body: { email, password },
        headers: new Headers(cookie ? { cookie } : {}),
        returnHeaders: true,
      });

    it('creates a user whose password is stored only as the library hash', async () => {
      const user = await addUser(auth, { email: 'Ann@Example.test', password: 'correct horse', role: 'admin' });
      expect(user).toMatchObject({ email: 'ann@example.test', role: 'admin', disabled: false });
      const hash = await opened.passwordHashOf(user.id);
      expect(hash).toBeTruthy();
      expect(hash).not.toContain('correct horse');
      const ctx = await auth.$context;
      expect(await ctx.password.verify({ password: 'correct horse', hash: hash ?? '' })).toBe(true);
      expect(await ctx.password.verify({ password: 'wrong', hash: hash ?? '' })).toBe(false);
      await expect(
        addUser(auth, { email: 'ann@example.test', password: 'whatever1', role: 'member' }),
      ).rejects.toMatchObject({
        code: 'exists',
      });
    });

    it('signs in with an HttpOnly SameSite cookie session, with the role, and signs out', async () => {
      const { headers, response } = await signIn('ann@example.test', 'correct horse');
      expect(response.user.email).toBe('ann@example.test');
      const setCookies = setCookiesOf(headers);
      const sessionCookie = setCookies.find((c) => c.startsWith('skillchat.session_token='));
      expect(sessionCookie).toMatch(/HttpOnly/i);
      expect(sessionCookie).toMatch(/SameSite=Lax/i);
      expect(setCookies.some((c) => c.startsWith(`${DEVICE_COOKIE}=`))).toBe(true);

      const cookie = cookieHeader(setCookies);
      const session = await auth.api.getSession({ headers: new Headers({ cookie }) });
      expect(session?.user).toMatchObject({ email: 'ann@example.test', role: 'admin' });

      await auth.api.signOut({ headers: new Headers({ cookie }) });
      expect(await auth.api.getSession({ headers: new Headers({ cookie }) })).toBeNull();
    });

    it('refuses a wrong password and an unknown email alike', async () => {
      const wrong = await rejection(
        signIn('ann@example.test', 'not the password', 'skillchat.device=wrongpassworddevice000001'),
      );
      expect(wrong.statusCode).toBe(401);
      const unknown = await rejection(
        signIn('nobody@example.test', 'correct horse', 'skillchat.device=wrongpassworddevice000002'),
      );
      expect(unknown.statusCode).toBe(401);
    });

    it('a disabled user cannot sign in, loses their sessions, and a password reset signs out everywhere', async () => {
      await addUser(auth, { email: 'bob@example.test', password: 'bob password', role: 'member' });
      const first = await signIn('bob@example.test', 'bob password');
      const cookie = cookieHeader(setCookiesOf(first.headers));
      expect(await auth.api.getSession({ headers: new Headers({ cookie }) })).not.toBeNull();

      await setPassword(auth, 'bob@example.test', 'new bob password');
      expect(await auth.api.getSession({ headers: new Headers({ cookie }) })).toBeNull();
      expect((await rejection(signIn('bob@example.test', 'bob password'))).statusCode).toBe(401);
      const second = await signIn('bob@example.test', 'new bob password');
      const cookie2 = cookieHeader(setCookiesOf(second.headers));

      await disableUser(auth, 'bob@example.test');
      expect(await auth.api.getSession({ headers: new Headers({ cookie: cookie2 }) })).toBeNull();
      const refused = await rejection(signIn('bob@example.test', 'new bob password'));
      expect(refused.statusCode).toBe(403);
      expect((await listUsers(auth)).find((u) => u.email === 'bob@example.test')?.disabled).toBe(true);
    });

    it('limits failures per account, but not for a browser that signed in to it before', async () => {
      await addUser(auth, { email: 'carol@example.test', password: 'carol password', role: 'admin' });
      const ok = await signIn('carol@example.test', 'carol password');
      const carolsBrowser = cookieHeader(setCookiesOf(ok.headers).filter((c) => c.startsWith(`${DEVICE_COOKIE}=`)));

      // A stranger fails from three "clients" (fresh device ids): the account limit is reached.
      for (let i = 0; i < 3; i++) {
        const e = await rejection(
          signIn('carol@example.test', `guess ${i}`, `${DEVICE_COOKIE}=strangerdevice0000000000${i}`),
        );
        expect(e.statusCode).toBe(401);
      }
      // Now even the right password from an unknown client is refused, without checking it...
      const locked = await rejection(
        signIn('carol@example.test', 'carol password', `${DEVICE_COOKIE}=strangerdevice0000000009`),
      );
      expect(locked.statusCode).toBe(429);
      expect(locked.body?.code).toBe('rate_limited:account');
      // ...while Carol's own browser still gets in.
      const again = await signIn('carol@example.test', 'carol password', carolsBrowser);
      expect(again.response.user.email).toBe('carol@example.test');
    });

    it('limits failures per client across accounts; another client is unaffected', async () => {
      await addUser(auth, { email: 'dan@example.test', password: 'dan password', role: 'member' });
      const sprayer = `${DEVICE_COOKIE}=sprayerdevice00000000000001`;
      // Four failures over four different accounts: no account reaches its own limit of three.
      for (const email of ['x1@example.test', 'x2@example.test', 'x3@example.test', 'x4@example.test']) {
        expect((await rejection(signIn(email, 'password?', sprayer))).statusCode).toBe(401);
      }
      const blocked = await rejection(signIn('dan@example.test', 'dan password', sprayer));
      expect(blocked.statusCode).toBe(429);
      expect(blocked.body?.code).toBe('rate_limited:client');
      const other = await signIn('dan@example.test', 'dan password', `${DEVICE_COOKIE}=otherdevice000000000000001`);
      expect(other.response.user.email).toBe('dan@example.test');
    });

    it('deletes a user with their sessions, and never the last enabled admin', async () => {
      const dan = await signIn('dan@example.test', 'dan password');
      const cookie = cookieHeader(setCookiesOf(dan.headers));
      await deleteUser(auth, 'dan@example.test');
      expect(await auth.api.getSession({ headers: new Headers({ cookie }) })).toBeNull();
      expect((await listUsers(auth)).map((u) => u.email)).not.toContain('dan@example.test');

      await deleteUser(auth, 'carol@example.test');
      await expect(deleteUser(auth, 'ann@example.test')).rejects.toMatchObject({ code: 'last_admin' });
      await expect(disableUser(auth, 'ann@example.test')).rejects.toMatchObject({ code: 'last_admin' });
      await expect(deleteUser(auth, 'nobody@example.test')).rejects.toMatchObject({ code: 'not_found' });
    });

    it("deleting an account stops that person's running answer first, and waits until it is stored", async () => {
      const d = opened.database;
      const workspaceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-ws-'));
      try {
        const gus = await addUser(auth, { email: 'gus@example.test', password: 'gus password', role: 'member' });
        const chat = await createChat({ id: `${dialect}-gus-1`, userId: gus.id }, d);
        // A turn running in this process: it ends (its answer stored) a moment after it is aborted.
        const turns = createRunningTurns();
        const turn = turns.claim(chat.id);
        let storedWhileChatExisted = false;
        turn.controller.signal.addEventListener('abort', () => {
          setTimeout(async () => {
            storedWhileChatExisted = (await listChats({ userId: gus.id }, d)).length === 1;
            turn.release();
          }, 50);
        });

        expect(await deleteAccount(auth, 'gus@example.test', { db: d, turns, workspaceDir })).toEqual({
          chats: 1,
          filesLeft: 0,
        });

        expect(turn.controller.signal.aborted).toBe(true);
        expect(storedWhileChatExisted).toBe(true);
        expect(await listChats({ userId: gus.id }, d)).toEqual([]);
      } finally {
        fs.rmSync(workspaceDir, { recursive: true, force: true });
      }
    });

    it("deleting an account deletes that person's chats and their files, nobody else's", async () => {
      const d = opened.database;
      const workspaceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-ws-'));
      try {
        const erin = await addUser(auth, { email: 'erin@example.test', password: 'erin password', role: 'member' });
        const finn = await addUser(auth, { email: 'finn@example.test', password: 'finn password', role: 'member' });
        await createChat({ id: `${dialect}-erin-1`, userId: erin.id }, d);
        await createChat({ id: `${dialect}-erin-2`, userId: erin.id }, d);
        await createChat({ id: `${dialect}-finn-1`, userId: finn.id }, d);
        const erinFiles = await ensureWorkspace(workspaceDir, `${dialect}-erin-1`);
        const finnFiles = await ensureWorkspace(workspaceDir, `${dialect}-finn-1`);
        // A tree deeper than PATH_MAX (mkdir + cd, as a script makes it): Node's fs.rm gives up on it.
        execFileSync(
          'bash',
          ['-c', 'for i in $(seq 20); do mkdir $(printf "a%.0s" $(seq 250)) && cd $_; done; echo x > f'],
          {
            cwd: erinFiles,
          },
        );

        // Their own skills (server/install/personal.ts), beside the install root.
        const installRoot = path.join(workspaceDir, 'install', 'skills');
        const erinSkill = path.join(personalSkillsRoot(installRoot, erin.id), 'erin-notes');
        const finnSkill = path.join(personalSkillsRoot(installRoot, finn.id), 'finn-notes');
        for (const dir of [erinSkill, finnSkill]) fs.mkdirSync(dir, { recursive: true });

        expect(await deleteAccount(auth, 'erin@example.test', { db: d, workspaceDir, installRoot })).toEqual({
          chats: 2,
          filesLeft: 0,
        });
        expect(fs.existsSync(path.dirname(erinSkill))).toBe(false);
        expect(fs.existsSync(finnSkill)).toBe(true);

        expect(await listChats({ userId: erin.id }, d)).toEqual([]);
        expect((await listChats({ userId: finn.id }, d)).map((c) => c.id)).toEqual([`${dialect}-finn-1`]);
        expect(fs.existsSync(erinFiles)).toBe(false);
        expect(fs.existsSync(finnFiles)).toBe(true);
        expect((await listUsers(auth)).map((u) => u.email)).not.toContain('erin@example.test');
      } finally {
        fs.rmSync(workspaceDir, { recursive: true, force: true });
      }
    });
  });
}

function describeFirstAdmin(dialect: AuthDialect, open: () => Promise<OpenedDb>): void {
  describe(`first admin on ${dialect}`, () => {
    let opened: OpenedDb;
    let auth: ReturnType<typeof createAuth>;

    beforeAll(async () => {
      opened = await open();
      auth = createAuth({
        db: opened.database,
        secret: SECRET,
        baseURL: 'http://127.0.0.1:3000',
        logLevel: 'error',
      });
    });
    afterAll(async () => {
      await opened?.close();
    });

    it('a printed token creates exactly one first admin, once; then setup is closed', async () => {
      expect(await needsFirstAdmin(auth)).toBe(true);
      const replaced = await issueSetupToken(auth);
      const token = await issueSetupToken(auth);
      expect(token).toBeTruthy();
      const admin = { email: 'root@example.test', password: 'root password' };

      await expect(createFirstAdmin(auth, { ...admin, token: replaced ?? '' })).rejects.toMatchObject({
        code: 'bad_token',
      });
      await expect(createFirstAdmin(auth, { ...admin, token: 'typo' })).rejects.toMatchObject({ code: 'bad_token' });
      // A refused password does not spend the token.
      await expect(createFirstAdmin(auth, { ...admin, password: 'short', token: token ?? '' })).rejects.toMatchObject({
        code: 'invalid',
      });

      // Two tabs submit at once: one admin, one refusal.
      const results = await Promise.allSettled([
        createFirstAdmin(auth, { ...admin, token: token ?? '' }),
        createFirstAdmin(auth, { email: 'other@example.test', password: 'other password', token: token ?? '' }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect((await listUsers(auth)).filter((u) => u.role === 'admin')).toHaveLength(1);

      expect(await needsFirstAdmin(auth)).toBe(false);
      expect(await issueSetupToken(auth)).toBeNull();
      await expect(createFirstAdmin(auth, { ...admin, token: token ?? '' })).rejects.toMatchObject({
        code: 'setup_done',
      });
    });

    it('an expired token is refused', async () => {
      const [root] = await listUsers(auth);
      await deleteUserUnchecked(auth, root?.id ?? '');
      const token = await issueSetupToken(auth, new Date(), -1);
      await expect(
        createFirstAdmin(auth, { email: 'late@example.test', password: 'late password', token: token ?? '' }),
      ).rejects.toMatchObject({ code: 'bad_token' });
    });
  });
}

/** Removes a user without the last-admin rule, to get back to "no admin" within one database. */
async function deleteUserUnchecked(auth: ReturnType<typeof createAuth>, id: string): Promise<void> {
  const ctx = await auth.$context;
  await ctx.internalAdapter.deleteUser(id);
}
