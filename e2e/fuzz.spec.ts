/**
 * No request shape gets a 5xx: a bounded, seeded set of requests over every route (methods, malformed JSON, wrong
 * types, sizes, ids, percent-escapes) against a real `next start` of its own (own port, database and skill roots,
 * reusing the e2e build), only to 127.0.0.1. Every error must be JSON `{ error, code }` that names no server path.
 * The same server carries a lookalike skill (`cоmmit-message`, Cyrillic `о`), which the slash menu must flag.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { ChatPage } from './chat-page';
import { type OwnServer, startOwnServer } from './own-server';

test.describe.configure({ mode: 'serial' });

const PORT = Number(process.env.E2E_FUZZ_PORT ?? 3221);
const ORIGIN = `http://127.0.0.1:${PORT}`;
const SEED = 12;
const REQUESTS = 600;

test.use({ baseURL: ORIGIN });

let server: OwnServer;
let tmp: string;

function writeSkill(dir: string, name: string, description: string) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\n\nBody.\n`);
}

test.beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-fuzz-')));
  const roots = path.join(tmp, 'skills');
  writeSkill(path.join(roots, 'commit-message'), 'commit-message', 'Writes a commit message from a diff.');
  writeSkill(path.join(roots, 'cоmmit-message'), 'cоmmit-message', 'Writes a commit message (lookalike).');
  // The case: a link to `/` inside a root; it must not be followed.
  fs.symlinkSync('/', path.join(roots, 'everything'));
  fs.mkdirSync(path.join(tmp, 'home'));
  server = await startOwnServer(PORT, {
    SKILLCHAT_DB: path.join(tmp, 'fuzz.db'),
    SKILLCHAT_HOME: path.join(tmp, 'home'),
    SKILLCHAT_SKILL_ROOTS: roots,
    SKILLCHAT_OFFLINE_CHUNK_DELAY_MS: '0',
  });
});

test.afterAll(async () => {
  await server?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** mulberry32: a small seeded PRNG, so a failure names a request that can be sent again. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Raw `node:http`: the path and method go out exactly as written (fetch would normalise or refuse them). */
function send(r: FuzzRequest): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: PORT,
        method: r.method,
        path: r.path,
        // Framed explicitly: Node's client sends a DELETE or OPTIONS body unframed, which no server can read.
        headers: {
          ...r.headers,
          ...(r.body !== undefined ? { 'content-length': String(Buffer.byteLength(r.body)) } : {}),
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          // Streams (a chat answer) are not read to the end: the status and headers decide.
          if (body.length < 100_000) body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('timed out')));
    if (r.body !== undefined) req.write(r.body);
    req.end();
  });
}

const ROUTES = [
  '/api/chat',
  '/api/chats',
  '/api/chats/:id',
  '/api/chats/:id/stop',
  '/api/chats/:id/versions',
  '/api/chats/:id/messages',
  '/api/skills',
  '/api/me/skills',
  '/api/me/skills/:name',
  '/api/status',
  '/api/models',
  '/api/auth/sign-in/email',
  '/api/auth/sign-out',
  '/api/setup',
  '/api/admin/users',
  '/api/admin/users/:id',
  '/api/admin/overview',
  '/api/admin/rescan',
  '/api/admin/skills/:name/mode',
  '/api/admin/grants/:id/revoke',
  '/',
  '/chat/:id',
  '/admin',
  '/admin/skills/:name',
  '/login',
  '/setup',
];

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'TRACK', 'PROPFIND', 'PURGE'];

const IDS = [
  'fuzz-chat',
  'commit-message',
  '%ZZ',
  '%C0%AF',
  '%E0%A4%A',
  '%',
  '%%30',
  '%00',
  '%2F..%2F..%2Fetc%2Fpasswd',
  '..',
  '%2e%2e',
  '%E2%9C%93',
  'c%D0%BEmmit-message',
  '%F0%9F%92%A9',
  '%FF%FE',
  'x'.repeat(3000),
  'a;b=c',
  '%20',
  '0',
  '-1',
  '9999999999999999999999',
  '__proto__',
  'constructor',
];

const BODIES: Array<{ type?: string; body: () => string }> = [
  { type: 'application/json', body: () => '{' },
  { type: 'application/json', body: () => '' },
  { type: 'application/json', body: () => 'null' },
  { type: 'application/json', body: () => '[]' },
  { type: 'application/json', body: () => '"text"' },
  { type: 'application/json', body: () => '12' },
  { type: 'application/json', body: () => '{"chatId":5,"message":"hi"}' },
  { type: 'application/json', body: () => '{"chatId":"fuzz-chat","message":{"parts":[{"type":"text","text":7}]}}' },
  { type: 'application/json', body: () => '{"chatId":"fuzz-chat","trigger":"approval-response","approvals":"yes"}' },
  { type: 'application/json', body: () => '{"title":{"a":1}}' },
  { type: 'application/json', body: () => `{"title":"${'t'.repeat(100_000)}"}` },
  { type: 'application/json', body: () => '{"mode":"sideways"}' },
  { type: 'application/json', body: () => '{"model":"nope:x"}' },
  { type: 'application/json', body: () => '{"model":["offline:builtin"],"title":"t"}' },
  { type: 'application/json', body: () => '{"token":["a"],"email":{"x":1},"password":null}' },
  { type: 'application/json', body: () => '{"__proto__":{"admin":true},"id":"fuzz-chat"}' },
  { type: 'application/json', body: () => `${'['.repeat(5000)}${']'.repeat(5000)}` },
  { type: 'application/json', body: () => '\u0000\u0001garbage' },
  { type: 'application/json', body: () => '{"id":"fuzz-chat","title":"Fuzz"}' },
  { type: 'text/plain', body: () => 'hello' },
  { type: 'application/x-www-form-urlencoded', body: () => 'email=%ZZ&next=%E0%A4%A' },
  { type: 'multipart/form-data; boundary=x', body: () => '--x\r\nbroken' },
  { body: () => '{}' },
  { type: 'application/json', body: () => 'x'.repeat(2 * 1024 * 1024) },
];

/** The seeded request list: every route with every method once, then random mixes of ids, bodies and headers. */
function requests(): FuzzRequest[] {
  const random = prng(SEED);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const fill = (route: string) => route.replace(/:(id|name)/g, () => pick(IDS));
  const out: FuzzRequest[] = [];
  const make = (method: string, route: string): FuzzRequest => {
    const headers: Record<string, string> = { host: `127.0.0.1:${PORT}` };
    // Mostly same-origin, so requests get past the Origin check and into the route code.
    if (random() < 0.85) headers.origin = ORIGIN;
    let body: string | undefined;
    if (!['GET', 'HEAD', 'TRACE', 'TRACK'].includes(method) && random() < 0.9) {
      const b = pick(BODIES);
      body = b.body();
      if (b.type) headers['content-type'] = b.type;
    }
    const query = random() < 0.2 ? `?q=${pick(['%ZZ', 'x'.repeat(5000), '%00', '/', '&&&', 'commit'])}` : '';
    return { method, path: fill(route) + query, headers, body };
  };
  for (const route of ROUTES) for (const method of METHODS) out.push(make(method, route));
  while (out.length < REQUESTS) out.push(make(pick(METHODS), pick(ROUTES)));
  return out;
}

test('no request shape gets a 5xx; every API error is JSON with a code and a sentence', async () => {
  test.setTimeout(10 * 60_000);
  // A chat to aim at, so some requests reach the code behind a valid id.
  const created = await send({
    method: 'POST',
    path: '/api/chats',
    headers: { host: `127.0.0.1:${PORT}`, origin: ORIGIN, 'content-type': 'application/json' },
    body: '{"id":"fuzz-chat","title":"Fuzz"}',
  });
  expect(created.status).toBeLessThan(300);

  const failures: string[] = [];
  const list = requests();
  for (const [i, r] of list.entries()) {
    const label = `#${i} ${r.method} ${r.path.slice(0, 120)} (${r.body?.slice(0, 60) ?? 'no body'})`;
    const reply = await send(r).catch((error: Error) => error);
    if (reply instanceof Error) {
      failures.push(`${label} -> ${reply.message}`);
      continue;
    }
    if (reply.status >= 500) failures.push(`${label} -> ${reply.status} ${reply.body.slice(0, 200)}`);
    const isApi = r.path.startsWith('/api/');
    const json = (reply.headers['content-type'] ?? '').includes('application/json');
    // API errors (and every 400/405 the proxy gives) are `{ error, code }`. Page 404s are the not-found page.
    if (reply.status >= 400 && r.method !== 'HEAD' && (isApi || reply.status === 400 || reply.status === 405)) {
      let parsed: { error?: unknown; code?: unknown } | null = null;
      try {
        parsed = json ? JSON.parse(reply.body) : null;
      } catch {}
      if (typeof parsed?.error !== 'string' || typeof parsed.code !== 'string' || parsed.error.length < 8) {
        failures.push(`${label} -> ${reply.status} not a JSON error: ${reply.body.slice(0, 200)}`);
      }
    }
    // Driver and runtime messages stay in the server log.
    if (isApi && /SQLITE_|sqlite3|TypeError|ReferenceError|\n\s+at /.test(reply.body)) {
      failures.push(`${label} -> ${reply.status} shows an internal message: ${reply.body.slice(0, 200)}`);
    }
    // The admin pages show paths to the operator (admin is open on loopback); nothing else may.
    const admin = r.path.startsWith('/admin') || r.path.startsWith('/api/admin');
    if (!admin && reply.body.includes(tmp)) failures.push(`${label} -> response names a server path`);
  }
  expect(failures, failures.join('\n')).toEqual([]);
  expect(list.length).toBe(REQUESTS);
});

test('the issue’s malformed requests are 400 and 405 JSON', async () => {
  const cases: Array<[method: string, path: string, status: number, code: string]> = [
    ['GET', '/api/chats/%ZZ', 400, 'bad_request:path'],
    ['POST', '/api/chats/%C0%AF/stop', 400, 'bad_request:path'],
    ['GET', '/chat/%E0%A4%A', 400, 'bad_request:path'],
    ['POST', '/api/admin/skills/%ZZ/mode', 400, 'bad_request:path'],
    ['TRACE', '/api/chat', 405, 'method_not_allowed:request'],
    ['TRACK', '/api/chat', 400, 'bad_request:http'],
    ['PUT', '/api/chats', 405, 'method_not_allowed:request'],
  ];
  for (const [method, p, status, code] of cases) {
    const reply = await send({ method, path: p, headers: { host: `127.0.0.1:${PORT}`, origin: ORIGIN } });
    expect(reply.status, `${method} ${p}`).toBe(status);
    expect(JSON.parse(reply.body), `${method} ${p}`).toMatchObject({ code, error: expect.any(String) });
  }
});

test('a lookalike skill name is flagged in the slash menu and on /admin; the link to / was not followed', async ({
  page,
  request,
}) => {
  const skills = (await (await request.get('/api/skills')).json()) as {
    skills: Array<{ name: string; warning?: string }>;
  };
  expect(skills.skills.map((s) => s.name)).toEqual(['commit-message', 'cоmmit-message']);
  expect(skills.skills[1]!.warning).toContain("Another skill, 'commit-message', looks the same");

  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.input.fill('/comm');
  await expect(page.getByTestId('slash-warning-cоmmit-message')).toContainText('mixes Latin and Cyrillic');
  await expect(page.getByTestId('slash-warning-commit-message')).toContainText('U+043E (Cyrillic)');

  await page.goto('/admin');
  const problems = page.getByTestId('problems');
  await expect(problems).toContainText('confusable-name');
  await expect(problems).toContainText('mixed-script-name');
  await expect(problems).toContainText('link-to-ancestor');
});
