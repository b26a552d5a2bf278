/**
 * The sign-in limits on PostgreSQL, and shared by instances: two throttles on two connection pools to one database
 * (two app instances) count the same failures and know the same browsers.
 */
import { describe, expect, inject, it } from 'vitest';
import { describeLoginThrottle } from '../../test/auth/login-throttle-suite';
import { createScratchDatabase } from '../../test/pg-scratch';
import { pgDatabase } from '../db/client';
import { closePgDb, openPgDb } from '../db/pg';
import { createLoginThrottle, DEFAULT_LOGIN_THROTTLE } from './login-throttle';

const baseUrl = inject('pgUrl');

describe.skipIf(!baseUrl)('PostgreSQL', () => {
  describeLoginThrottle('pg', async () => {
    const db = await openPgDb(await createScratchDatabase(baseUrl, 'throttle'));
    return { d: pgDatabase(db), close: () => closePgDb(db) };
  });

  it('two instances share one count: 5 failures split over both lock the account on both', async () => {
    const url = await createScratchDatabase(baseUrl, 'throttle_two');
    const [one, two] = await Promise.all([openPgDb(url), openPgDb(url)]);
    try {
      const a = createLoginThrottle(pgDatabase(one), DEFAULT_LOGIN_THROTTLE);
      const b = createLoginThrottle(pgDatabase(two), DEFAULT_LOGIN_THROTTLE);
      const now = Date.now();
      await a.recordSuccess({ account: 'admin@x', device: 'admin-device', address: null }, now);
      for (let i = 0; i < 5; i++) {
        const instance = i % 2 === 0 ? a : b;
        expect((await instance.check({ account: 'admin@x', device: `s${i}`, address: null }, now)).allowed).toBe(true);
        await instance.recordFailure({ account: 'admin@x', device: `s${i}`, address: null }, now);
      }
      for (const instance of [a, b]) {
        expect(await instance.check({ account: 'admin@x', device: 'stranger', address: null }, now)).toMatchObject({
          allowed: false,
          scope: 'account',
        });
        // The admin's browser, known through instance a, gets in on b as well.
        expect(await instance.check({ account: 'admin@x', device: 'admin-device', address: null }, now)).toEqual({
          allowed: true,
        });
      }
    } finally {
      await Promise.all([closePgDb(one), closePgDb(two)]);
    }
  });
});
