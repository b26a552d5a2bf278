import { describe, expect, it } from 'vitest';
import { createLoginThrottle } from './login-throttle';

const rules = {
  account: { max: 3, windowMs: 60_000 },
  client: { max: 5, windowMs: 60_000 },
  knownClientMs: 3600_000,
  maxKeys: 4,
};

describe('login throttle', () => {
  it('locks an account for unknown clients after its failures, and lets the known client in', () => {
    const t = createLoginThrottle(rules);
    t.recordSuccess({ account: 'admin@x', client: 'device:admin' }, 0);
    for (let i = 0; i < 3; i++) t.recordFailure({ account: 'admin@x', client: `device:s${i}` }, 1000);
    expect(t.check({ account: 'admin@x', client: 'device:new' }, 2000)).toEqual({
      allowed: false,
      scope: 'account',
      retryAfter: 59,
    });
    expect(t.check({ account: 'admin@x', client: 'device:admin' }, 2000)).toEqual({ allowed: true });
    expect(t.check({ account: 'other@x', client: 'device:new' }, 2000)).toEqual({ allowed: true });
  });

  it('the lock lifts when the window passes the oldest counted failure', () => {
    const t = createLoginThrottle(rules);
    for (const at of [0, 10_000, 20_000]) t.recordFailure({ account: 'a', client: `c${at}` }, at);
    expect(t.check({ account: 'a', client: 'z' }, 59_999).allowed).toBe(false);
    expect(t.check({ account: 'a', client: 'z' }, 60_000)).toEqual({ allowed: true });
  });

  it('limits one client across many accounts, and a success clears that client', () => {
    const t = createLoginThrottle(rules);
    for (let i = 0; i < 5; i++) t.recordFailure({ account: `u${i}`, client: 'ip:1' }, 0);
    expect(t.check({ account: 'fresh', client: 'ip:1' }, 1)).toMatchObject({ allowed: false, scope: 'client' });
    expect(t.check({ account: 'fresh', client: 'ip:2' }, 1)).toEqual({ allowed: true });
    t.recordSuccess({ account: 'u0', client: 'ip:1' }, 2);
    expect(t.check({ account: 'fresh', client: 'ip:1' }, 3)).toEqual({ allowed: true });
  });

  it('a known client is forgotten after knownClientMs', () => {
    const t = createLoginThrottle(rules);
    t.recordSuccess({ account: 'a', client: 'mine' }, 0);
    for (let i = 0; i < 3; i++) t.recordFailure({ account: 'a', client: `s${i}` }, 3600_000);
    expect(t.check({ account: 'a', client: 'mine' }, 3600_000).allowed).toBe(false);
  });

  it('remembers at most maxKeys accounts, dropping the oldest', () => {
    const t = createLoginThrottle({ ...rules, client: { max: 1000, windowMs: 60_000 } });
    for (let i = 0; i < 3; i++) t.recordFailure({ account: 'first', client: 'c' }, 0);
    for (let i = 0; i < 4; i++) t.recordFailure({ account: `later${i}`, client: 'c' }, 1);
    expect(t.check({ account: 'first', client: 'z' }, 2)).toEqual({ allowed: true });
  });
});
