import { describe, expect, it } from 'vitest';
import { checkRequest, hasSessionCookie, isPublicPath, type RequestFacts, safeNextPath } from './check';
import { buildExposurePolicy } from './exposure';

const LOOPBACK = { __NEXT_PRIVATE_ORIGIN: 'http://127.0.0.1:3100' };
const EXPOSED = { __NEXT_PRIVATE_ORIGIN: 'http://localhost:3100', SKILLCHAT_HOST: '0.0.0.0' };

const loopback = buildExposurePolicy({ env: LOOPBACK, allowedHosts: [] });
const exposed = buildExposurePolicy({ env: EXPOSED, allowedHosts: ['chat.lan'] });
const SESSION = 'skillchat.session_token=abc.def';

function facts(overrides: Partial<RequestFacts> = {}): RequestFacts {
  return { method: 'GET', pathname: '/', host: '127.0.0.1:3100', origin: null, cookie: null, ...overrides };
}

function check(f: Partial<RequestFacts>, policy = loopback) {
  return checkRequest(facts(f), policy);
}

describe('Host', () => {
  it('serves loopback names and allowlisted names', () => {
    expect(check({ host: 'localhost:3100' })).toEqual({ action: 'allow' });
    expect(check({ host: 'chat.lan:3100', cookie: SESSION }, exposed)).toEqual({ action: 'allow' });
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

  it('compares the scheme too: https with the same host and port is another origin on an http server', () => {
    for (const origin of ['https://127.0.0.1:3100', 'https://127.0.0.1']) {
      expect(check({ method: 'POST', pathname: '/api/admin/users', origin })).toMatchObject({
        action: 'deny',
        status: 403,
        code: 'forbidden:origin',
      });
    }
    // Behind a TLS proxy (Secure cookies) a listed name is an https origin, and only that.
    const proxied = buildExposurePolicy({
      env: { ...EXPOSED, SKILLCHAT_SECURE_COOKIES: '1' },
      allowedHosts: ['chat.lan'],
    });
    const write = { method: 'POST', pathname: '/api/chats', host: 'chat.lan', cookie: SESSION };
    expect(check({ ...write, origin: 'https://chat.lan' }, proxied)).toEqual({ action: 'allow' });
    expect(check({ ...write, origin: 'http://chat.lan:8443' }, proxied)).toMatchObject({ action: 'deny', status: 403 });
  });

  it('does not ask GET, HEAD or OPTIONS for an Origin', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'get']) {
      expect(check({ method, pathname: '/api/chats' })).toEqual({ action: 'allow' });
    }
  });

  it('refuses a sign-in or a server action without Origin too', () => {
    expect(check({ method: 'POST', pathname: '/api/auth/sign-in/email' }, exposed)).toMatchObject({ status: 403 });
    expect(check({ method: 'POST', pathname: '/admin' })).toMatchObject({ status: 403, format: 'text' });
  });
});

describe('sessions on an exposed server', () => {
  it('need nothing on a loopback-only server', () => {
    for (const pathname of ['/', '/admin', '/chat/x', '/api/chats', '/api/admin/overview']) {
      expect(check({ pathname })).toEqual({ action: 'allow' });
    }
    expect(check({ method: 'POST', pathname: '/api/admin/rescan', origin: 'http://127.0.0.1:3100' })).toEqual({
      action: 'allow',
    });
  });

  it('send a page without a session cookie to /login, and refuse an API with 401 JSON', () => {
    for (const pathname of ['/', '/chat/abc', '/admin', '/admin/skills/x']) {
      expect(check({ pathname }, exposed)).toEqual({ action: 'login', next: pathname });
    }
    for (const pathname of ['/api/chats', '/api/chat', '/api/models', '/api/admin/overview', '/api/admin/users']) {
      expect(check({ pathname }, exposed)).toMatchObject({
        action: 'deny',
        status: 401,
        code: 'unauthorized:session',
        format: 'json',
      });
    }
  });

  it('let a request with a session cookie through (the route checks it is valid)', () => {
    expect(check({ pathname: '/', cookie: SESSION }, exposed)).toEqual({ action: 'allow' });
    expect(check({ pathname: '/api/admin/overview', cookie: `a=1; ${SESSION}` }, exposed)).toEqual({ action: 'allow' });
    expect(check({ pathname: '/api/chats', cookie: '__Secure-skillchat.session_token=x' }, exposed)).toEqual({
      action: 'allow',
    });
  });

  it('do not take other or empty cookies for a session', () => {
    for (const cookie of [
      'skillchat.session_token=',
      'skillchat.device=abc',
      'x-skillchat.session_token=abc',
      'session=1',
    ]) {
      expect(check({ pathname: '/api/chats', cookie }, exposed)).toMatchObject({ status: 401 });
    }
  });

  it('still require Origin on writes with a session', () => {
    expect(check({ method: 'POST', pathname: '/api/admin/rescan', cookie: SESSION }, exposed)).toMatchObject({
      status: 403,
    });
  });

  it('let the ways in, the health check and static files through without a session', () => {
    for (const pathname of [
      '/login',
      '/setup',
      '/api/status',
      '/api/auth/sign-in/email',
      '/api/auth/get-session',
      '/_next/static/chunks/app.js',
      '/favicon.ico',
    ]) {
      expect(check({ pathname }, exposed)).toEqual({ action: 'allow' });
    }
    expect(check({ method: 'POST', pathname: '/api/setup', origin: 'http://127.0.0.1:3100' }, exposed)).toEqual({
      action: 'allow',
    });
  });

  it('are not skipped by paths that only look public', () => {
    for (const p of ['/login/../api/chats', '/api/authx', '/loginx', '/api/status/x', '/setupx']) {
      expect(isPublicPath(p)).toBe(false);
    }
    for (const p of ['/LOGIN', '/login/', '/api//auth/sign-out']) expect(isPublicPath(p)).toBe(true);
  });

  it('read the session cookie by exact name', () => {
    expect(hasSessionCookie(null)).toBe(false);
    expect(hasSessionCookie('skillchat.session_token=v')).toBe(true);
    expect(hasSessionCookie('a=b;skillchat.session_token = v')).toBe(true);
    expect(hasSessionCookie('skillchat.session_token_x=v')).toBe(false);
  });
});

describe('safeNextPath', () => {
  it('keeps paths of this app and refuses anything else', () => {
    expect(safeNextPath('/admin/skills/pdf')).toBe('/admin/skills/pdf');
    expect(safeNextPath('/chat/1')).toBe('/chat/1');
    for (const next of [
      null,
      '',
      '//evil.example/admin',
      '/\\evil.example',
      'https://evil.example/admin',
      '/login',
      '/setup',
      '/api/chats',
      '/admin x',
    ]) {
      expect(safeNextPath(next)).toBe('/');
    }
  });
});

describe('the skill server (POST /mcp, GET /.well-known/agent-skills/...)', () => {
  const host = 'chat.lan:3100';

  it('lets a program without Origin or cookie through to the route, which checks its token', () => {
    for (const policy of [loopback, exposed]) {
      const h = policy === loopback ? '127.0.0.1:3100' : host;
      expect(check({ method: 'POST', pathname: '/mcp', host: h }, policy)).toEqual({ action: 'allow' });
      expect(check({ pathname: '/.well-known/agent-skills/index.json', host: h }, policy)).toEqual({
        action: 'allow',
      });
    }
  });

  it('still refuses a cross-site POST from a browser (it always sends Origin), with JSON', () => {
    for (const origin of ['https://evil.example', 'null']) {
      expect(check({ method: 'POST', pathname: '/mcp', host, origin, cookie: SESSION }, exposed)).toMatchObject({
        action: 'deny',
        status: 403,
        code: 'forbidden:origin',
        format: 'json',
      });
    }
  });

  it('keeps the Host allowlist (DNS rebinding)', () => {
    expect(check({ method: 'POST', pathname: '/mcp', host: 'rebind.attacker.example:3100' })).toMatchObject({
      action: 'deny',
      status: 421,
    });
  });

  it('does not open any other path without Origin', () => {
    expect(check({ method: 'POST', pathname: '/mcp/x' })).toMatchObject({ action: 'deny', status: 403 });
    expect(check({ method: 'POST', pathname: '/api/me/tokens' })).toMatchObject({ action: 'deny', status: 403 });
  });
});
