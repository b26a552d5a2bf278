import { describe, expect, it } from 'vitest';
import { clearedSessionCookie, readSessionCookie, sessionCookie } from './cookie';
import { createFailureLimiter } from './rate-limit';
import {
  ADMIN_COOKIE,
  checkSessionValue,
  createSessionValue,
  generateAdminToken,
  SESSION_MAX_AGE_SECONDS,
  tokensEqual,
} from './token';

const TOKEN = 'a-long-enough-admin-token';
const NOW = 1_800_000_000_000;

describe('tokens', () => {
  it('generates long random tokens', () => {
    const a = generateAdminToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(generateAdminToken()).not.toBe(a);
  });

  it('compares whatever the lengths', () => {
    expect(tokensEqual(TOKEN, TOKEN)).toBe(true);
    expect(tokensEqual(`${TOKEN}x`, TOKEN)).toBe(false);
    expect(tokensEqual('', TOKEN)).toBe(false);
  });
});

describe('session values', () => {
  it('are valid until they expire and never contain the token', () => {
    const value = createSessionValue(TOKEN, NOW);
    expect(value).not.toContain(TOKEN);
    expect(checkSessionValue(value, TOKEN, NOW + 1000)).toBe('valid');
    expect(checkSessionValue(value, TOKEN, NOW + SESSION_MAX_AGE_SECONDS * 1000)).toBe('expired');
  });

  it('stop working when the token changes', () => {
    expect(checkSessionValue(createSessionValue(TOKEN, NOW), `${TOKEN}-rotated`, NOW)).toBe('invalid');
  });

  it('refuse forged or malformed values', () => {
    const [version, expiresAt, signature] = createSessionValue(TOKEN, NOW).split('.');
    const far = NOW + SESSION_MAX_AGE_SECONDS * 1000 * 10;
    expect(checkSessionValue(`${version}.${far}.${signature}`, TOKEN, NOW)).toBe('invalid');
    expect(checkSessionValue(`${version}.${expiresAt}.${signature}x`, TOKEN, NOW)).toBe('invalid');
    expect(checkSessionValue(`v0.${expiresAt}.${signature}`, TOKEN, NOW)).toBe('invalid');
    expect(checkSessionValue(TOKEN, TOKEN, NOW)).toBe('invalid');
    expect(checkSessionValue('', TOKEN, NOW)).toBe('invalid');
  });

  it('report an expired value without checking its signature', () => {
    expect(checkSessionValue(`v1.${NOW - 1}.garbage`, TOKEN, NOW)).toBe('expired');
  });
});

describe('cookies', () => {
  it('are HttpOnly, SameSite=Strict and Secure only over HTTPS', () => {
    const plain = sessionCookie('v', { secure: false });
    expect(plain).toBe(`${ADMIN_COOKIE}=v; Path=/; Max-Age=${SESSION_MAX_AGE_SECONDS}; HttpOnly; SameSite=Strict`);
    expect(sessionCookie('v', { secure: true })).toMatch(/; Secure$/);
    expect(clearedSessionCookie()).toContain('Max-Age=0');
  });

  it('are read from a Cookie header', () => {
    expect(readSessionCookie(`a=1; ${ADMIN_COOKIE}=v1.2.x; b=2`)).toBe('v1.2.x');
    expect(readSessionCookie(`${ADMIN_COOKIE}x=1`)).toBeNull();
    expect(readSessionCookie(null)).toBeNull();
  });
});

describe('failure limiter', () => {
  it('allows max failures per window, then asks to wait until the oldest ages out', () => {
    const limiter = createFailureLimiter({ max: 3, windowMs: 60_000 });
    for (let i = 0; i < 3; i++) {
      expect(limiter.retryAfter(NOW + i * 1000)).toBeNull();
      limiter.recordFailure(NOW + i * 1000);
    }
    expect(limiter.retryAfter(NOW + 3000)).toBe(57);
    expect(limiter.retryAfter(NOW + 59_999)).toBe(1);
    expect(limiter.retryAfter(NOW + 60_000)).toBeNull();
  });

  it('keeps its memory bounded', () => {
    const limiter = createFailureLimiter({ max: 2, windowMs: 1000 });
    for (let i = 0; i < 1000; i++) limiter.recordFailure(NOW);
    expect(limiter.retryAfter(NOW + 1000)).toBeNull();
  });
});
