/**
 * The sign-in limits both databases must show: `login-throttle.test.ts` runs it on SQLite, `login-throttle.pg.test.ts`
 * on a scratch PostgreSQL, where two throttles on two connections also stand for two app instances. `open` returns
 * a fresh migrated database each time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Attempt, createLoginThrottle, type LoginThrottleOptions } from '../../server/auth/login-throttle';
import type { Database } from '../../server/db/client';

export interface OpenedThrottleDb {
  d: Database;
  close(): Promise<void> | void;
}

const rules: LoginThrottleOptions = {
  account: { max: 3, windowMs: 60_000 },
  client: { max: 5, windowMs: 60_000 },
  knownClientMs: 3600_000,
};

const from = (account: string, device: string | null, address: string | null = null): Attempt => ({
  account,
  device,
  address,
});

export function describeLoginThrottle(dialect: string, open: () => Promise<OpenedThrottleDb>): void {
  describe(`login throttle on ${dialect}`, () => {
    const opened: OpenedThrottleDb[] = [];
    const fresh = async () => {
      const o = await open();
      opened.push(o);
      return createLoginThrottle(o.d, rules);
    };
    afterEach(async () => {
      for (const o of opened.splice(0)) await o.close();
    });

    it('locks an account for unknown browsers after its failures, and lets the known browser in', async () => {
      const t = await fresh();
      await t.recordSuccess({ ...from('admin@x', 'admin-device'), device: 'admin-device' }, 0);
      for (let i = 0; i < 3; i++) await t.recordFailure(from('admin@x', `stranger${i}`), 1000);
      expect(await t.check(from('admin@x', 'new'), 2000)).toEqual({ allowed: false, scope: 'account', retryAfter: 59 });
      expect(await t.check(from('admin@x', null), 2000)).toMatchObject({ allowed: false, scope: 'account' });
      expect(await t.check(from('admin@x', 'admin-device'), 2000)).toEqual({ allowed: true });
      expect(await t.check(from('other@x', 'new'), 2000)).toEqual({ allowed: true });
    });

    it('the lock lifts when the window passes the oldest counted failure', async () => {
      const t = await fresh();
      for (const at of [0, 10_000, 20_000]) await t.recordFailure(from('a', `c${at}`), at);
      expect((await t.check(from('a', 'z'), 59_999)).allowed).toBe(false);
      expect(await t.check(from('a', 'z'), 60_000)).toEqual({ allowed: true });
    });

    it('limits one browser across many accounts, and its success clears its own count', async () => {
      const t = await fresh();
      for (let i = 0; i < 5; i++) await t.recordFailure(from(`u${i}`, 'sprayer'), 0);
      expect(await t.check(from('fresh', 'sprayer'), 1)).toMatchObject({ allowed: false, scope: 'client' });
      expect(await t.check(from('fresh', 'other'), 1)).toEqual({ allowed: true });
      await t.recordSuccess({ ...from('u0', 'sprayer'), device: 'sprayer' }, 2);
      expect(await t.check(from('fresh', 'sprayer'), 3)).toEqual({ allowed: true });
    });

    it('counts per address too, so a fresh cookie per attempt does not reset the count', async () => {
      const t = await fresh();
      for (let i = 0; i < 5; i++) await t.recordFailure(from(`u${i}`, `rotated${i}`, '192.0.2.7'), 0);
      expect(await t.check(from('u9', 'rotated9', '192.0.2.7'), 1)).toMatchObject({ allowed: false, scope: 'client' });
      expect(await t.check(from('u9', null, '192.0.2.7'), 1)).toMatchObject({ allowed: false, scope: 'client' });
      expect(await t.check(from('u9', 'rotated9', '192.0.2.8'), 1)).toEqual({ allowed: true });
    });

    it('cookieless failures share no count: a stranger without cookies cannot hold back every new browser', async () => {
      const t = await fresh();
      for (let i = 0; i < 5; i++) await t.recordFailure(from(`u${i}`, null, `192.0.2.${i}`), 0);
      expect(await t.check(from('fresh', null, '198.51.100.1'), 1)).toEqual({ allowed: true });
    });

    it("a browser known to an account gets in from a blocked address (a stranger on the admin's network)", async () => {
      const t = await fresh();
      await t.recordSuccess({ ...from('admin@x', 'admin-device', '192.0.2.7'), device: 'admin-device' }, 0);
      for (let i = 0; i < 5; i++) await t.recordFailure(from(`u${i}`, `rotated${i}`, '192.0.2.7'), 1);
      expect(await t.check(from('admin@x', 'admin-device', '192.0.2.7'), 2)).toEqual({ allowed: true });
      expect((await t.check(from('admin@x', 'other', '192.0.2.7'), 2)).allowed).toBe(false);
    });

    it('a known browser is forgotten after knownClientMs', async () => {
      const t = await fresh();
      await t.recordSuccess({ ...from('a', 'mine'), device: 'mine' }, 0);
      for (let i = 0; i < 3; i++) await t.recordFailure(from('a', `s${i}`), 3600_000);
      expect((await t.check(from('a', 'mine'), 3600_000)).allowed).toBe(false);
    });

    it('keeps counts and known browsers in the database: a new throttle (a restart) sees them', async () => {
      const o = await open();
      opened.push(o);
      const before = createLoginThrottle(o.d, rules);
      await before.recordSuccess({ ...from('admin@x', 'admin-device'), device: 'admin-device' }, 0);
      for (let i = 0; i < 3; i++) await before.recordFailure(from('admin@x', `stranger${i}`), 1000);
      const after = createLoginThrottle(o.d, rules);
      expect(await after.check(from('admin@x', 'admin-device'), 2000)).toEqual({ allowed: true });
      expect((await after.check(from('admin@x', 'stranger9'), 2000)).allowed).toBe(false);
    });

    it('drops failures older than every window as new ones come in', async () => {
      const o = await open();
      opened.push(o);
      const t = createLoginThrottle(o.d, rules);
      await t.recordFailure(from('a', 'x', '192.0.2.1'), 0);
      await t.recordFailure(from('b', 'y'), 120_000);
      const rows = await o.d.db.select({ key: o.d.t.loginFailures.key }).from(o.d.t.loginFailures);
      expect(rows.map((r) => r.key).sort()).toEqual(['b', 'y']);
    });
  });
}
