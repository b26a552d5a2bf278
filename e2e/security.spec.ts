/**
 * Access rules against real `next start` servers, each spawned here on its own port with its own environment
 * (reusing the `.next` build the e2e web server made). Requests go to 127.0.0.1 only, through `node:http` so the
 * `Host` header can be whatever the case needs (DNS rebinding arrives with the attacker's name in `Host`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { freePort } from './own-server';

test.describe.configure({ mode: 'serial' });

const appDir = path.resolve(import.meta.dirname, '..');
const ADMIN = { email: 'sec@example.test', password: 'security-password-1' };

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function send(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: { host: `127.0.0.1:${port}`, ...options.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

interface Server {
  port: number;
  origin: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts `next start` with its own database and home folder, and waits until it answers. */
async function startServer(name: string, bind: string, env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const dir = path.join(appDir, '.e2e', `security-${name}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'home'), { recursive: true });
  const child: ChildProcess = spawn(
    path.join(appDir, 'node_modules', '.bin', 'next'),
    ['start', '-H', bind, '-p', String(port)],
    {
      cwd: appDir,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'production',
        NEXT_TELEMETRY_DISABLED: '1',
        SKILLCHAT_DB: path.join(dir, 'test.db'),
        SKILLCHAT_HOME: path.join(dir, 'home'),
        OPENAI_API_KEY: '',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited (${child.exitCode}):\n${output}`);
    const ready = await send(port, { path: '/api/status' }).catch(() => null);
    if (ready?.status === 200) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`next start did not answer on ${port}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { port, origin: `http://127.0.0.1:${port}`, output: () => output, stop };
}

function expectSecurityHeaders(reply: Reply) {
  expect(reply.headers['x-frame-options']).toBe('DENY');
  expect(reply.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(reply.headers['x-content-type-options']).toBe('nosniff');
  expect(reply.headers['referrer-policy']).toBe('same-origin');
  expect(reply.headers['access-control-allow-origin']).toBeUndefined();
}

function setCookies(reply: Reply): string[] {
  const raw = reply.headers['set-cookie'];
  return Array.isArray(raw) ? raw : raw ? [raw] : [];
}

/** The first admin, made with the setup token the server printed; returns its session cookie (`name=value`). */
async function adminSession(server: Server): Promise<string> {
  const token = /setup token \(valid once\): (\S+)/.exec(server.output())?.[1];
  if (!token) throw new Error(`no setup token printed:\n${server.output()}`);
  const json = { 'content-type': 'application/json', origin: server.origin };
  const setup = await send(server.port, {
    method: 'POST',
    path: '/api/setup',
    headers: json,
    body: JSON.stringify({ token, ...ADMIN }),
  });
  expect(setup.status).toBe(201);
  const signIn = await send(server.port, {
    method: 'POST',
    path: '/api/auth/sign-in/email',
    headers: json,
    body: JSON.stringify(ADMIN),
  });
  expect(signIn.status).toBe(200);
  const cookie = setCookies(signIn).find((c) => c.startsWith('skillchat.session_token='));
  expect(cookie).toContain('HttpOnly');
  expect(cookie).toMatch(/SameSite=Lax/i);
  return cookie!.split(';')[0]!;
}

test.describe('exposed server (bound to 0.0.0.0: accounts)', () => {
  let server: Server;
  let session: string;
  test.beforeAll(async () => {
    server = await startServer('exposed', '0.0.0.0', {});
    session = await adminSession(server);
  });
  test.afterAll(async () => {
    await server?.stop();
  });

  test('spoofed forwarding headers do not grant access', async () => {
    const spoofed = {
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-host': 'localhost',
      'x-real-ip': '127.0.0.1',
      forwarded: 'for=127.0.0.1;host=localhost',
    };
    const page = await send(server.port, { path: '/admin', headers: spoofed });
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe('/login?next=%2Fadmin');
    expect(page.body).not.toContain('data-testid="admin-page"');
    const api = await send(server.port, { path: '/api/admin/overview', headers: spoofed });
    expect(api.status).toBe(401);
    expect(JSON.parse(api.body)).toMatchObject({ code: 'unauthorized:session' });
    const localhost = await send(server.port, { path: '/admin', headers: { host: `localhost:${server.port}` } });
    expect(localhost.status).toBe(303);
  });

  test('a foreign Host is refused on a page and on an API', async () => {
    for (const p of ['/', '/login', '/api/status', '/api/chats', '/api/auth/get-session']) {
      const reply = await send(server.port, { path: p, headers: { host: `rebind.attacker.example:${server.port}` } });
      expect(reply.status, p).toBe(421);
      expect(reply.headers['content-type']).toContain('text/plain');
      expect(reply.body).toContain('is not served here');
      expectSecurityHeaders(reply);
    }
    const forwarded = await send(server.port, {
      path: '/api/status',
      headers: { host: 'rebind.attacker.example', 'x-forwarded-host': `127.0.0.1:${server.port}` },
    });
    expect(forwarded.status).toBe(421);
  });

  test('POST without Origin or with a foreign Origin is refused; the same origin is accepted', async () => {
    const body = JSON.stringify({ title: 'from the security test' });
    const json = { 'content-type': 'application/json', cookie: session };
    const missing = await send(server.port, { method: 'POST', path: '/api/chats', headers: json, body });
    expect(missing.status).toBe(403);
    expect(JSON.parse(missing.body)).toMatchObject({ code: 'forbidden:origin' });
    for (const origin of ['https://evil.example', 'null', `http://127.0.0.1:${server.port + 1}`]) {
      const foreign = await send(server.port, {
        method: 'POST',
        path: '/api/chats',
        headers: { ...json, origin },
        body,
      });
      expect(foreign.status, origin).toBe(403);
      expect(JSON.parse(foreign.body)).toMatchObject({ code: 'forbidden:origin' });
      expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    }
    // Same host and port, another scheme: another origin (red-team: this created an admin).
    const otherScheme = await send(server.port, {
      method: 'POST',
      path: '/api/admin/users',
      headers: { ...json, origin: `https://127.0.0.1:${server.port}` },
      body: JSON.stringify({ email: 'eve@example.test', password: 'eve-password-1', role: 'admin' }),
    });
    expect(otherScheme.status).toBe(403);
    expect(JSON.parse(otherScheme.body)).toMatchObject({ code: 'forbidden:origin' });
    const users = await send(server.port, { path: '/api/admin/users', headers: { cookie: session } });
    expect(users.body).not.toContain('eve@example.test');
    const chat = await send(server.port, {
      method: 'POST',
      path: '/api/chat',
      headers: { ...json, origin: 'https://evil.example' },
      body: JSON.stringify({ chatId: 'x', trigger: 'submit-message' }),
    });
    expect(chat.status).toBe(403);
    const signIn = await send(server.port, {
      method: 'POST',
      path: '/api/auth/sign-in/email',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body: JSON.stringify(ADMIN),
    });
    expect(signIn.status).toBe(403);
    expect(setCookies(signIn)).toEqual([]);
    const same = await send(server.port, {
      method: 'POST',
      path: '/api/chats',
      headers: { ...json, origin: server.origin },
      body,
    });
    expect(same.status).toBe(201);
    expectSecurityHeaders(same);
  });

  test('a wrong password is refused; the session opens /admin; a forged session cookie does not', async () => {
    const wrong = await send(server.port, {
      method: 'POST',
      path: '/api/auth/sign-in/email',
      headers: { 'content-type': 'application/json', origin: server.origin },
      body: JSON.stringify({ email: ADMIN.email, password: 'not-the-password' }),
    });
    expect(wrong.status).toBe(401);
    expect(setCookies(wrong).filter((c) => c.startsWith('skillchat.session_token='))).toEqual([]);

    const page = await send(server.port, { path: '/admin', headers: { cookie: session } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('data-testid="admin-page"');
    expect(page.body).not.toContain(appDir);
    const rescan = await send(server.port, {
      method: 'POST',
      path: '/api/admin/rescan',
      headers: { cookie: session, origin: server.origin },
    });
    expect(rescan.status).toBe(200);
    const noOrigin = await send(server.port, {
      method: 'POST',
      path: '/api/admin/rescan',
      headers: { cookie: session },
    });
    expect(noOrigin.status).toBe(403);
    const forged = await send(server.port, {
      path: '/api/admin/overview',
      headers: { cookie: 'skillchat.session_token=forged.signature' },
    });
    expect(forged.status).toBe(401);
    const forgedPage = await send(server.port, {
      path: '/admin',
      headers: { cookie: 'skillchat.session_token=forged.signature' },
    });
    expect(forgedPage.status).toBe(307);
    expect(forgedPage.headers.location).toBe('/login?next=%2Fadmin');
  });
});

test.describe('loopback-only server (the default bind)', () => {
  let server: Server;
  test.beforeAll(async () => {
    server = await startServer('loopback', '127.0.0.1', {});
  });
  test.afterAll(async () => {
    await server?.stop();
  });

  test('serves /admin without a sign-in, but still checks Host and Origin', async () => {
    const page = await send(server.port, { path: '/admin' });
    expect(page.status).toBe(200);
    expect(page.body).toContain('data-testid="admin-page"');
    expectSecurityHeaders(page);
    const overview = await send(server.port, {
      path: '/api/admin/overview',
      headers: { host: `localhost:${server.port}` },
    });
    expect(overview.status).toBe(200);
    expect(overview.body).not.toContain(appDir);

    const rebound = await send(server.port, { path: '/admin', headers: { host: `attacker.example:${server.port}` } });
    expect(rebound.status).toBe(421);
    const noOrigin = await send(server.port, { method: 'POST', path: '/api/admin/rescan' });
    expect(noOrigin.status).toBe(403);
    const rescan = await send(server.port, {
      method: 'POST',
      path: '/api/admin/rescan',
      headers: { origin: server.origin },
    });
    expect(rescan.status).toBe(200);
  });

  test('non-admin responses name no absolute filesystem path', async () => {
    const home = path.join(appDir, '.e2e', 'security-loopback', 'home');
    for (const p of ['/', '/api/status', '/api/skills?q=', '/api/skills?q=validation', '/api/chats']) {
      const reply = await send(server.port, { path: p });
      expect(reply.status, p).toBe(200);
      expect(reply.body, p).not.toContain(appDir);
      expect(reply.body, p).not.toContain(home);
    }
  });
});
