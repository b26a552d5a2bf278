/**
 * The TLS-terminating branch against real loopback servers: an HTTPS upstream for `tls.test` with its own CA (the
 * operator trusts it through `network.trust`), one whose CA nobody trusts, and a plain HTTP one. A net server that
 * hands each connection to `interceptTunnel` stands in for an answered CONNECT; a small CONNECT front does the same
 * for curl. Nothing leaves 127.0.0.1.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type EgressCa, leafFor, loadOrCreateCa, upstreamTrust, writeTrustBundle } from './ca';
import { type InterceptedRequest, type InterceptOptions, interceptTunnel } from './intercept';

const run = promisify(execFile);
const SECRET = 'Bearer s3cret-value';
/** No proxy or CA variables from the outer environment: each client is told exactly where to go. */
const CLEAN_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'test' } as const;

interface Seen {
  method: string;
  url: string;
  host: string;
  authorization?: string;
  headers: string[];
  body: string;
}

let tmp: string;
let egressCa: EgressCa;
let bundle: string;
let upstreamCa: string[];
const servers: net.Server[] = [];
let seen: Seen[];
let events: InterceptedRequest[];
/** Connections each stand-in CONNECT listener accepted. */
let tunnels: number;
/** Bytes that came with each CONNECT request, after it. */
let heads: number[];

async function listen<T extends net.Server>(server: T): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function upstreamHandler(req: http.IncomingMessage, res: http.ServerResponse) {
  let body = '';
  req.on('data', (chunk) => {
    body += chunk;
  });
  req.on('end', () => {
    seen.push({
      method: req.method!,
      url: req.url!,
      host: req.headers.host!,
      authorization: req.headers.authorization,
      headers: req.rawHeaders.filter((_, i) => i % 2 === 0).map((h) => h.toLowerCase()),
      body,
    });
    res.setHeader('connection', 'keep-alive');
    res.end(`upstream saw ${req.method} ${req.url}`);
  });
}

let goodPort: number;
let ipPort: number;
let roguePort: number;
let plainPort: number;
let closedPort: number;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-egress-intercept-'));
  egressCa = await loadOrCreateCa(path.join(tmp, 'egress'));
  // The upstream's own CA, trusted by the operator; a rogue one nobody trusts, with a leaf for the same name.
  const operatorCa = await loadOrCreateCa(path.join(tmp, 'upstream-ca'));
  const rogueCa = await loadOrCreateCa(path.join(tmp, 'rogue-ca'));
  const good = await leafFor(operatorCa, 'tls.test');
  const rogue = await leafFor(rogueCa, 'tls.test');
  goodPort = await listen(https.createServer({ cert: good.certPem, key: good.keyPem }, upstreamHandler));
  const ip = await leafFor(operatorCa, '127.0.0.1');
  ipPort = await listen(https.createServer({ cert: ip.certPem, key: ip.keyPem }, upstreamHandler));
  roguePort = await listen(https.createServer({ cert: rogue.certPem, key: rogue.keyPem }, upstreamHandler));
  plainPort = await listen(http.createServer(upstreamHandler));
  const closed = net.createServer();
  closedPort = await listen(closed);
  await new Promise((resolve) => closed.close(resolve));

  const trust = [path.join(tmp, 'upstream-ca', 'ca.pem')];
  upstreamCa = await upstreamTrust(trust);
  bundle = (await writeTrustBundle(path.join(tmp, 'egress'), egressCa, [])).bundle;
});

afterAll(async () => {
  for (const server of servers) {
    if (server.listening) await new Promise((resolve) => server.close(resolve));
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

beforeEach(() => {
  seen = [];
  events = [];
  tunnels = 0;
  heads = [];
});

function options(port: number, extra: Partial<InterceptOptions> = {}): InterceptOptions {
  return {
    target: { host: 'tls.test', port },
    address: { address: '127.0.0.1', family: 4 },
    headers: { Authorization: SECRET },
    limited: false,
    ca: egressCa,
    upstreamCa,
    onRequest: (e) => events.push(e),
    ...extra,
  };
}

/** A listener whose every connection is a tunnel the proxy already answered 200 to. */
async function interceptor(opts: InterceptOptions): Promise<number> {
  return listen(
    net.createServer((socket) => {
      tunnels++;
      interceptTunnel(socket, Buffer.alloc(0), opts);
    }),
  );
}

/** A CONNECT front (what proxy.ts does before its intercept hook), for clients that speak to a proxy. */
async function connectFront(opts: InterceptOptions): Promise<number> {
  const front = http.createServer((_req, res) => res.writeHead(405).end());
  front.on('connect', (_req, socket: net.Socket, head: Buffer) => {
    tunnels++;
    heads.push(head.length);
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    interceptTunnel(socket, head, opts);
  });
  return listen(front);
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A keep-alive client whose one connection goes to the interceptor, with the `tls.test` URL the run would use. */
function tunnelClient(listenerPort: number, upstreamPort: number, tlsOptions: tls.ConnectionOptions | null) {
  const dial = () =>
    tlsOptions
      ? tls.connect({
          host: '127.0.0.1',
          port: listenerPort,
          servername: 'tls.test',
          ca: egressCa.certPem,
          ...tlsOptions,
        })
      : net.connect(listenerPort, '127.0.0.1');
  const Base = tlsOptions ? https.Agent : http.Agent;
  const agent = new (class extends Base {
    override createConnection() {
      return dial();
    }
  })({ keepAlive: true, maxSockets: 1 });
  const request = (method: string, urlPath: string, headers: Record<string, string> = {}, body?: string) =>
    new Promise<Reply>((resolve, reject) => {
      const req = (tlsOptions ? https : http).request(
        { host: 'tls.test', port: upstreamPort, method, path: urlPath, headers, agent },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return { request, close: () => agent.destroy() };
}

describe('interceptTunnel over TLS', () => {
  it('adds the secret header in place of the one the run sent, on every request of a kept-alive tunnel', async () => {
    const port = await interceptor(options(goodPort));
    const client = tunnelClient(port, goodPort, {});
    const first = await client.request('GET', '/user', { authorization: 'Bearer placeholder', 'x-run': 'one' });
    const second = await client.request('POST', '/issues?x=1', { AUTHORIZATION: 'placeholder' }, 'title=hi');
    client.close();

    expect(first).toMatchObject({ status: 200, body: 'upstream saw GET /user' });
    expect(second).toMatchObject({ status: 200, body: 'upstream saw POST /issues?x=1' });
    expect(tunnels).toBe(1);
    expect(seen).toMatchObject([
      { method: 'GET', url: '/user', host: `tls.test:${goodPort}`, authorization: SECRET },
      { method: 'POST', url: '/issues?x=1', authorization: SECRET, body: 'title=hi' },
    ]);
    for (const request of seen) expect(request.headers.filter((h) => h === 'authorization')).toHaveLength(1);
    expect(seen[0]?.headers).toContain('x-run');
    expect(events).toEqual([
      { method: 'GET', path: '/user', allowed: true, status: 200, bytesIn: 22, bytesOut: 0 },
      { method: 'POST', path: '/issues?x=1', allowed: true, status: 200, bytesIn: 29, bytesOut: 8 },
    ]);
  });

  it('refuses a request whose Host is not the tunnel host, and sends nothing upstream', async () => {
    const port = await interceptor(options(goodPort));
    const client = tunnelClient(port, goodPort, {});
    const reply = await client.request('GET', '/', { host: 'other.test' });
    const absolute = await client.request('GET', 'https://other.test/');
    client.close();

    for (const r of [reply, absolute]) {
      expect(r.status).toBe(403);
      expect(r.headers['x-skillchat-egress']).toBe('host-mismatch');
      expect(r.body).toContain(`This tunnel is for tls.test:${goodPort}`);
    }
    expect(seen).toEqual([]);
    expect(events.map((e) => e.code)).toEqual(['host-mismatch', 'host-mismatch']);
  });

  it('refuses a TLS name other than the tunnel host (domain fronting)', async () => {
    const port = await interceptor(options(goodPort));
    const client = tunnelClient(port, goodPort, { servername: 'other.test' });
    await expect(client.request('GET', '/')).rejects.toThrow();
    client.close();
    expect(seen).toEqual([]);
    expect(events).toMatchObject([{ method: 'CONNECT', allowed: false, code: 'sni-mismatch' }]);
    expect(events[0]?.reason).toContain('"other.test" is not tls.test');
  });

  it('serves an IP literal host with an IP leaf, the client sending no TLS name', async () => {
    const target = { host: '127.0.0.1', port: ipPort };
    const port = await interceptor(options(ipPort, { target }));
    const socket = tls.connect({ host: '127.0.0.1', port, ca: egressCa.certPem });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    expect(socket.authorized).toBe(true);
    expect(socket.getPeerCertificate().subjectaltname).toBe('IP Address:127.0.0.1');
    socket.write(`GET /ip HTTP/1.1\r\nHost: 127.0.0.1:${ipPort}\r\nConnection: close\r\n\r\n`);
    let text = '';
    for await (const chunk of socket) text += chunk;
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*upstream saw GET \/ip$/);
    expect(seen).toMatchObject([{ url: '/ip', authorization: SECRET }]);
  });

  it('keeps a limited host (a package index) to GET and HEAD', async () => {
    const port = await interceptor(options(goodPort, { limited: true, headers: {} }));
    const client = tunnelClient(port, goodPort, {});
    const post = await client.request('POST', '/upload', {}, 'data');
    const get = await client.request('GET', '/simple/');
    const head = await client.request('HEAD', '/simple/');
    client.close();

    expect(post.status).toBe(403);
    expect(post.headers['x-skillchat-egress']).toBe('method');
    expect(post.body).toContain('only GET and HEAD');
    expect([get.status, head.status]).toEqual([200, 200]);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /simple/', 'HEAD /simple/']);
    expect(events.map((e) => [e.method, e.allowed, e.code])).toEqual([
      ['POST', false, 'method'],
      ['GET', true, undefined],
      ['HEAD', true, undefined],
    ]);
  });

  it('answers 502 when the upstream certificate does not chain to the trusted CAs, or nothing listens', async () => {
    const rogue = await interceptor(options(roguePort));
    const client = tunnelClient(rogue, roguePort, {});
    const reply = await client.request('GET', '/');
    client.close();
    expect(reply.status).toBe(502);
    expect(reply.headers['x-skillchat-egress']).toBe('upstream');
    expect(reply.body).toMatch(
      /^tls\.test:\d+ could not be reached: its certificate is not trusted \(\w+\); an operator/,
    );
    expect(seen).toEqual([]);

    const closed = await interceptor(options(closedPort));
    const none = tunnelClient(closed, closedPort, {});
    const refused = await none.request('GET', '/');
    none.close();
    expect(refused).toMatchObject({
      status: 502,
      body: `tls.test:${closedPort} could not be reached: the connection was refused.\n`,
    });
    expect(events.map((e) => [e.status, e.code])).toEqual([
      [502, 'upstream'],
      [502, 'upstream'],
    ]);
  });
});

describe('interceptTunnel, plain HTTP inside the tunnel', () => {
  it('adds the secret and forwards to the checked address', async () => {
    const port = await interceptor(options(plainPort));
    const client = tunnelClient(port, plainPort, null);
    const first = await client.request('GET', '/plain', { Authorization: 'placeholder' });
    const second = await client.request('GET', '/again');
    client.close();
    expect([first.body, second.body]).toEqual(['upstream saw GET /plain', 'upstream saw GET /again']);
    expect(tunnels).toBe(1);
    expect(seen.map((s) => s.authorization)).toEqual([SECRET, SECRET]);
  });

  it('serves a request that arrived with the CONNECT itself (the head)', async () => {
    const front = await connectFront(options(plainPort));
    const socket = net.connect(front, '127.0.0.1');
    socket.write(
      `CONNECT tls.test:${plainPort} HTTP/1.1\r\nHost: tls.test:${plainPort}\r\n\r\n` +
        `GET /early HTTP/1.1\r\nHost: tls.test:${plainPort}\r\nConnection: close\r\n\r\n`,
    );
    let text = '';
    for await (const chunk of socket) text += chunk;
    expect(text).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    expect(heads[0]).toBeGreaterThan(0);
    expect(text).toContain('upstream saw GET /early');
    expect(seen).toMatchObject([{ url: '/early', authorization: SECRET }]);
  });
});

describe('real clients through the intercept', () => {
  it('Python verifies the leaf in strict mode with the trust bundle', async () => {
    const port = await interceptor(options(goodPort));
    const script = [
      'import socket, ssl, sys',
      'ctx = ssl.create_default_context(cafile=sys.argv[1])',
      'ctx.verify_flags |= ssl.VERIFY_X509_STRICT',
      "s = ctx.wrap_socket(socket.create_connection(('127.0.0.1', int(sys.argv[2]))), server_hostname='tls.test')",
      "s.sendall(('GET /py HTTP/1.1\\r\\nHost: tls.test:%s\\r\\nConnection: close\\r\\n\\r\\n' % sys.argv[3]).encode())",
      'data = b""',
      'while True:',
      '    chunk = s.recv(65536)',
      '    if not chunk: break',
      '    data += chunk',
      'print(data.decode())',
    ].join('\n');
    const { stdout } = await run('python3', ['-c', script, bundle, String(port), String(goodPort)], { env: CLEAN_ENV });
    expect(stdout).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(stdout).toContain('upstream saw GET /py');
    expect(seen).toMatchObject([{ url: '/py', authorization: SECRET }]);
  });

  it('Python requests reaches the upstream through CONNECT, verifying with the bundle', async () => {
    const front = await connectFront(options(goodPort));
    const script = [
      'import requests, sys',
      "proxies = {'https': 'http://127.0.0.1:%s' % sys.argv[2]}",
      "r = requests.get(sys.argv[3], proxies=proxies, verify=sys.argv[1], headers={'Authorization': 'placeholder'})",
      'print(r.status_code, r.text)',
    ].join('\n');
    const url = `https://tls.test:${goodPort}/requests`;
    const { stdout } = await run('python3', ['-c', script, bundle, String(front), url], {
      env: CLEAN_ENV,
    });
    expect(stdout.trim()).toBe('200 upstream saw GET /requests');
    expect(seen).toMatchObject([{ url: '/requests', authorization: SECRET }]);
  });

  it('curl verifies with --cacert the bundle through CONNECT, over TLS and plain HTTP', async () => {
    const tlsFront = await connectFront(options(goodPort));
    const secure = await run(
      'curl',
      ['-sS', '--proxy', `http://127.0.0.1:${tlsFront}`, '--cacert', bundle, `https://tls.test:${goodPort}/curl`],
      { env: CLEAN_ENV },
    );
    expect(secure.stdout).toBe('upstream saw GET /curl');

    const plainFront = await connectFront(options(plainPort));
    const plain = await run(
      'curl',
      ['-sS', '--proxytunnel', '--proxy', `http://127.0.0.1:${plainFront}`, `http://tls.test:${plainPort}/plain`],
      { env: CLEAN_ENV },
    );
    expect(plain.stdout).toBe('upstream saw GET /plain');
    expect(seen.map((s) => [s.url, s.authorization])).toEqual([
      ['/curl', SECRET],
      ['/plain', SECRET],
    ]);
  });
});
