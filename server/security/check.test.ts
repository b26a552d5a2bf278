import { describe, expect, it } from 'vitest';
import { checkRequest, isAdminPath, type RequestFacts, safeNextPath } from './check';
import { attemptLogin } from './login';
import { buildAccessPolicy } from './policy';
import { createFailureLimiter } from './rate-limit';
import { createSessionValue } from './token';

const TOKEN = 'a-long-enough-admin-token';
const NOW = 1_800_000_000_000;
const LOOPBACK = { __NEXT_PRIVATE_ORIGIN: 'http://127.0.0.1:3100' };
const EXPOSED = { __NEXT_PRIVATE_ORIGIN: 'http://localhost:3100', SKILLCHAT_HOST: '0.0.0.0' };

const loopback = buildAccessPolicy({ env: LOOPBACK, allowedHosts: [] });
const exposed = buildAccessPolicy({ env: { ...EXPOSED, SKILLCHAT_ADMIN_TOKEN: TOKEN }, allowedHosts: ['chat.lan'] });
const locked = buildAccessPolicy({ env: EXPOSED, allowedHosts: [] });

function facts(overrides: Partial<RequestFacts> = {}): RequestFacts {
  return { method: 'GET', pathname: '/', host: '127.0.0.1:3100', origin: null, session: null, ...overrides };
}

function check(f: Partial<RequestFacts>, policy = loopback, limiter = createFailureLimiter()) {
  return checkRequest(facts(f), policy, { limiter, now: NOW });
}

describe('Host', () => {
  it('serves loopback names and allowlisted names', () => {
    expect(check({ host: 'localhost:3100' })).toEqual({ action: 'allow' });
    expect(check({ host: 'chat.lan:3100' }, exposed)).toEqual({ action: 'allow' });
  });

  it('refuses a foreign Host (DNS rebinding) on pages, APIs and static files with a text reason', () => {
    for (const pathname of ['/', '/api/chats', '/admin', '/_next/static/chunks/app.js']) {
      const d = check({ host: 'rebind.attacker.example:3100', pathname });
      expect(d).toMatchObject({ action: 'deny', status: 421, format: 'text' });
    }
  });

  it('refuses a missing or malformed Host', () => {
    expect(check({ host: null })).toMatchObject({ action: 'deny', status: 400 });
    expect(check({ host: 'a b' })).toMatchObject({ action: 'deny', status: 400 });
  });

  it('is not fooled by names that merely contain a loopback name', () => {
    for (const host of ['localhost.attacker.example', '127.0.0.1.nip.io', 'localhost@evil', '127.0.0.1:3100.evil']) {
      expect(check({ host })).toMatchObject({ action: 'deny' });
    }
  });
});

describe('Origin on state-changing requests', () => {
  it('accepts the same origin', () => {
    for (const method of ['POST', 'PATCH', 'DELETE', 'PUT']) {
      expect(check({ method, pathname: '/api/chats', origin: 'http://127.0.0.1:3100' })).toEqual({ action: 'allow' });
    }
  });

  it('refuses a missing, null or foreign Origin with JSON on APIs', () => {
    for (const origin of [null, 'null', 'https://evil.example', 'http://127.0.0.1:8080', 'http://localhost:3100']) {
      expect(check({ method: 'POST', pathname: '/api/chat', origin })).toMatchObject({
        action: 'deny',
        status: 403,
        code: 'forbidden:origin',
        format: 'json',
      });
    }
  });

  it('does not ask GET, HEAD or OPTIONS for an Origin', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'get']) {
      expect(check({ method, pathname: '/api/chats' })).toEqual({ action: 'allow' });
    }
  });

  it('refuses a login or a server action without Origin too', () => {
    expect(check({ method: 'POST', pathname: '/api/admin/login' })).toMatchObject({ status: 403 });
    expect(check({ method: 'POST', pathname: '/admin' })).toMatchObject({ status: 403, format: 'text' });
  });
});

describe('admin paths', () => {
  it('recognises admin paths however they are spelled', () => {
    for (const p of [
      '/admin',
      '/admin/',
      '/ADMIN',
      '//admin',
      '/%61dmin',
      '/admin/skills/x',
      '/api/admin/rescan',
      '/api//admin',
    ]) {
      expect(isAdminPath(p)).toBe(true);
    }
    for (const p of ['/', '/administrator', '/api/chats', '/chat/admin', '/api/adminx']) {
      expect(isAdminPath(p)).toBe(false);
    }
  });

  it('are open on a loopback-only server without a token', () => {
    expect(check({ pathname: '/admin' })).toEqual({ action: 'allow' });
    expect(check({ method: 'POST', pathname: '/api/admin/rescan', origin: 'http://127.0.0.1:3100' })).toEqual({
      action: 'allow',
    });
  });

  it('send a browser without a session to the login page, and refuse APIs with 401', () => {
    expect(check({ pathname: '/admin/skills/x' }, exposed)).toEqual({
      action: 'login',
      next: '/admin/skills/x',
      clearSession: false,
    });
    expect(check({ pathname: '/api/admin/overview' }, exposed)).toMatchObject({ status: 401, format: 'json' });
  });

  it('let the login form and endpoints through', () => {
    expect(check({ pathname: '/admin/login' }, exposed)).toEqual({ action: 'allow' });
    expect(check({ method: 'POST', pathname: '/api/admin/login', origin: 'http://127.0.0.1:3100' }, exposed)).toEqual({
      action: 'allow',
    });
  });

  it('accept a valid session', () => {
    const session = createSessionValue(TOKEN, NOW);
    expect(check({ pathname: '/admin', session }, exposed)).toEqual({ action: 'allow' });
    expect(
      check({ method: 'POST', pathname: '/api/admin/rescan', origin: 'http://127.0.0.1:3100', session }, exposed),
    ).toEqual({ action: 'allow' });
  });

  it('still require Origin on admin writes with a valid session', () => {
    const session = createSessionValue(TOKEN, NOW);
    expect(check({ method: 'POST', pathname: '/api/admin/rescan', session }, exposed)).toMatchObject({ status: 403 });
  });

  it('are not opened by forwarding headers (they are not an input) or by the raw token as a cookie', () => {
    expect(check({ pathname: '/admin', session: TOKEN }, exposed)).toMatchObject({
      action: 'login',
      clearSession: true,
    });
  });

  it('count forged sessions as failed guesses and stop checking them at the limit', () => {
    const limiter = createFailureLimiter({ max: 5, windowMs: 60_000 });
    for (let i = 0; i < 5; i++) {
      expect(
        check({ pathname: '/api/admin/overview', session: `v1.${NOW + 1000}.guess${i}` }, exposed, limiter),
      ).toMatchObject({
        status: 401,
        clearSession: true,
      });
    }
    const valid = createSessionValue(TOKEN, NOW);
    expect(check({ pathname: '/api/admin/overview', session: valid }, exposed, limiter)).toMatchObject({
      status: 429,
      retryAfter: 60,
    });
  });

  it('do not count an expired session as a guess', () => {
    const limiter = createFailureLimiter({ max: 1, windowMs: 60_000 });
    const expired = createSessionValue(TOKEN, NOW - 13 * 3600 * 1000);
    expect(check({ pathname: '/admin', session: expired }, exposed, limiter)).toMatchObject({ action: 'login' });
    expect(limiter.retryAfter(NOW)).toBeNull();
  });

  it('are closed when exposed without a token', () => {
    expect(check({ pathname: '/admin' }, locked)).toMatchObject({ action: 'login' });
    expect(check({ pathname: '/api/admin/overview' }, locked)).toMatchObject({
      status: 403,
      code: 'forbidden:admin_locked',
    });
  });
});

describe('attemptLogin', () => {
  it('accepts the token and returns a session', () => {
    const result = attemptLogin(` ${TOKEN} `, exposed, createFailureLimiter(), NOW);
    expect(result).toMatchObject({ ok: true });
    expect(result.ok && result.session).toMatch(/^v1\./);
  });

  it('refuses a wrong token, and rate-limits after 5 failures even for the right one', () => {
    const limiter = createFailureLimiter();
    for (let i = 0; i < 5; i++) {
      expect(attemptLogin(`wrong-${i}`, exposed, limiter, NOW + i)).toMatchObject({ ok: false, status: 401 });
    }
    expect(attemptLogin(TOKEN, exposed, limiter, NOW + 10)).toMatchObject({ ok: false, status: 429, retryAfter: 60 });
    expect(attemptLogin(TOKEN, exposed, limiter, NOW + 60_000)).toMatchObject({ ok: true });
  });

  it('does not count empty input as a guess', () => {
    const limiter = createFailureLimiter({ max: 1, windowMs: 60_000 });
    expect(attemptLogin('', exposed, limiter, NOW)).toMatchObject({ status: 400 });
    expect(attemptLogin(42, exposed, limiter, NOW)).toMatchObject({ status: 400 });
    expect(limiter.retryAfter(NOW)).toBeNull();
  });

  it('has nothing to do when admin is open, and refuses when locked', () => {
    expect(attemptLogin('x', loopback, createFailureLimiter(), NOW)).toEqual({ ok: true, session: null });
    expect(attemptLogin(TOKEN, locked, createFailureLimiter(), NOW)).toMatchObject({ status: 403 });
  });
});

describe('safeNextPath', () => {
  it('keeps admin paths and refuses anything else', () => {
    expect(safeNextPath('/admin/skills/pdf')).toBe('/admin/skills/pdf');
    for (const next of [
      null,
      '',
      '/',
      '//evil.example/admin',
      '/\\evil.example',
      'https://evil.example/admin',
      '/chat/1',
      '/admin/login',
      '/admin x',
    ]) {
      expect(safeNextPath(next)).toBe('/admin');
    }
  });
});
