/**
 * A run's egress proxy, end to end in this process: a client on its Unix socket (a raw CONNECT, or http.request in
 * absolute form), upstreams on 127.0.0.1. Names are answered by a map (anything else is ENOTFOUND), and every
 * connection the proxy opens goes through a `dial` spy, so a refusal is shown to dial nothing. Nothing here opens a
 * connection beyond loopback.
 */
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Resolver } from './address';
import { connectTo, type Dial, type Intercept, openRunProxy, type RunProxy, type RunProxyOptions } from './proxy';
import type { EgressDecision, EgressEvent, EgressTarget } from './types';

const NAMES: Record<string, string[]> = {
  'upstream.test': ['127.0.0.1'],
  'rebind.test': ['93.184.216.34', '127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
};

const resolve: Resolver = async (name) => {
  const found = NAMES[name];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const LIMITS = { maxBytesIn: 64 * 1024 * 1024, maxBytesOut: 64 * 1024 * 1024, maxSeconds: 60, maxConnections: 16 };

let upstream: http.Server;
let port: number;
/** A TCP server that only records what it receives (for what a tunnel lets through). */
let raw: net.Server;
let rawPort: number;
let rawReceived: Buffer[];

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    if (req.url === '/hello') res.end('hello from upstream');
    else if (req.url === '/headers') res.end(JSON.stringify({ headers: req.headers, raw: req.rawHeaders }));
    else if (req.url?.startsWith('/big')) {
      // 4 MB in 64 KB chunks, each after the last one drained, so a cap can land in the middle.
      let left = 64;
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const more = () => {
        while (left > 0) {
          left--;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      res.writeHead(200, { 'content-length': String(64 * chunk.length) });
      more();
    } else res.writeHead(404).end();
  });
  raw = net.createServer((socket) => {
    socket.on('data', (data) => rawReceived.push(data));
    socket.on('error', () => {});
  });
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
  await new Promise<void>((done) => raw.listen(0, '127.0.0.1', done));
  port = (upstream.address() as AddressInfo).port;
  rawPort = (raw.address() as AddressInfo).port;
});
afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((done) => upstream.close(done));
  await new Promise((done) => raw.close(done));
});

let tmp: string;
let proxy: RunProxy | null;
let events: EgressEvent[];
let dial: ReturnType<typeof vi.fn<Dial>>;
let decided: EgressTarget[];

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-egress-'));
  events = [];
  decided = [];
  rawReceived = [];
  proxy = null;
  dial = vi.fn<Dial>(connectTo);
});
afterEach(async () => {
  await proxy?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A run granted `grants` (`host:port` -> the decision's extras), everything else refused as not granted. */
async function open(
  grants: Record<string, Partial<Extract<EgressDecision, { allow: true }>>>,
  extra: Partial<RunProxyOptions> = {},
): Promise<RunProxy> {
  proxy = await openRunProxy({
    socketPath: path.join(tmp, 'egress', 'run-1.sock'),
    decide: async (target) => {
      decided.push(target);
      const grant = grants[`${target.host}:${target.port}`];
      if (grant) return { allow: true, skills: ['test-skill'], ...grant };
      const reason = `${target.host}:${target.port} is not granted to test-skill`;
      return { allow: false, code: 'not-granted', reason, skills: [] };
    },
    private: [],
    resolve,
    dial,
    limits: LIMITS,
    onEvent: (event) => events.push(event),
    ...extra,
  });
  return proxy;
}

interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A raw CONNECT on the run's socket: the proxy's answer, and the socket (a tunnel when the status is 200). */
async function connect(run: RunProxy, authority: string): Promise<Reply & { socket: net.Socket }> {
  const socket = net.connect(run.socketPath);
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
  let seen = Buffer.alloc(0);
  await new Promise<void>((done, fail) => {
    const onData = (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      if (seen.includes('\r\n\r\n')) {
        socket.off('data', onData);
        socket.pause();
        done();
      }
    };
    socket.on('data', onData);
    socket.once('error', fail);
    socket.once('end', () => done());
  });
  const split = seen.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = seen.subarray(0, split).toString().split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  const status = Number(statusLine.split(' ')[1]);
  const rest = seen.subarray(split + 4);
  if (status === 200) {
    if (rest.length > 0) socket.unshift(rest);
    return { status, headers, body: '', socket };
  }
  return { status, headers, body: rest.toString() + (await readAll(socket)), socket };
}

function readAll(socket: net.Socket): Promise<string> {
  const chunks: Buffer[] = [];
  return new Promise((done) => {
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.once('close', () => done(Buffer.concat(chunks).toString()));
    socket.resume();
  });
}

/** A GET through an open tunnel (plain HTTP inside it), the whole reply as text. */
function getThrough(socket: net.Socket, urlPath: string): Promise<string> {
  socket.write(`GET ${urlPath} HTTP/1.1\r\nHost: upstream.test\r\nConnection: close\r\n\r\n`);
  return readAll(socket);
}

/** An absolute-form request on the run's socket, as an HTTP client configured with a proxy sends it. */
function viaProxy(run: RunProxy, url: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((done, fail) => {
    const req = http.request(
      { socketPath: run.socketPath, path: url, headers: { host: new URL(url).host, ...headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          done({
            status: res.statusCode ?? 0,
            headers: res.headers as Record<string, string>,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', fail);
    req.end();
  });
}

/** The proxy dialled once, to the checked loopback address (a tunnel also passes its read buffer). */
function expectOneDialTo(toPort: number): void {
  expect(dial).toHaveBeenCalledOnce();
  expect(dial.mock.calls[0]!.slice(0, 2)).toEqual([{ address: '127.0.0.1', family: 4 }, toPort]);
}

/** Events are written when a connection closes: wait for `count` of them. */
async function eventsSoon(count: number): Promise<EgressEvent[]> {
  await vi.waitFor(() => expect(events.length).toBeGreaterThanOrEqual(count), { timeout: 3000 });
  return events;
}

describe('a granted host', () => {
  it('is reached through CONNECT, at the address that was checked, and the event counts both ways', async () => {
    const run = await open({ [`upstream.test:${port}`]: {} }, { private: ['127.0.0.1/32'] });
    const { status, socket } = await connect(run, `upstream.test:${port}`);
    expect(status).toBe(200);
    expect(await getThrough(socket, '/hello')).toContain('hello from upstream');
    expectOneDialTo(port);
    const [event] = await eventsSoon(1);
    expect(event).toMatchObject({ host: 'upstream.test', port, allowed: true, skills: ['test-skill'], requests: 1 });
    expect(event!.bytesOut).toBeGreaterThan(60); // the CONNECT and the GET
    expect(event!.bytesIn).toBeGreaterThan(100); // the 200 and the response
    expect(event!.code).toBeUndefined();
  });

  it('is reached with a plain absolute-form request, one event per request', async () => {
    const run = await open({ [`upstream.test:${port}`]: {} }, { private: ['127.0.0.1/32'] });
    const reply = await viaProxy(run, `http://upstream.test:${port}/hello`);
    expect(reply).toMatchObject({ status: 200, body: 'hello from upstream' });
    expect(await viaProxy(run, `http://upstream.test:${port}/hello`)).toMatchObject({ status: 200 });
    const [first, second] = await eventsSoon(2);
    expect(first).toMatchObject({ host: 'upstream.test', port, allowed: true, requests: 1 });
    expect(first!.bytesIn).toBeGreaterThan('hello from upstream'.length);
    expect(first!.bytesOut).toBeGreaterThan(20);
    expect(second).toMatchObject({ allowed: true });
    // One dial: the second request rides the kept-alive connection to the same checked address.
    expectOneDialTo(port);
  });

  it('gets the decision headers on plain HTTP, replacing the ones the client sent, and its own Host', async () => {
    // proxy-chain builds the upstream request from rawHeaders after the hook: this pins that behaviour.
    const headers = { Authorization: 'Bearer from-the-proxy' };
    const run = await open({ [`upstream.test:${port}`]: { headers } }, { private: ['127.0.0.1/32'] });
    const reply = await viaProxy(run, `http://upstream.test:${port}/headers`, {
      authorization: 'Bearer the-scripts-own',
      host: 'elsewhere.test',
    });
    const seen = JSON.parse(reply.body) as { headers: Record<string, string>; raw: string[] };
    expect(seen.headers.authorization).toBe('Bearer from-the-proxy');
    expect(seen.raw.filter((h) => h.toLowerCase() === 'authorization')).toHaveLength(1);
    expect(seen.headers.host).toBe(`upstream.test:${port}`);
  });
});

describe('refusals reach the client, and nothing is dialled', () => {
  it('a host no active skill is granted', async () => {
    const run = await open({});
    const plain = await viaProxy(run, `http://upstream.test:${port}/hello`);
    expect(plain.status).toBe(403);
    expect(plain.body).toBe(`upstream.test:${port} is not granted to test-skill`);
    expect(plain.headers['x-skillchat-egress']).toBe('not-granted');
    const tunnel = await connect(run, 'upstream.test:443');
    expect(tunnel.status).toBe(403);
    expect(tunnel.body).toBe('upstream.test:443 is not granted to test-skill');
    expect(dial).not.toHaveBeenCalled();
    expect(events.map((e) => [e.host, e.port, e.allowed, e.code])).toEqual([
      ['upstream.test', port, false, 'not-granted'],
      ['upstream.test', 443, false, 'not-granted'],
    ]);
  });

  it('a granted name that resolves to 127.0.0.1, without network.private; the reason names no address', async () => {
    const run = await open({ [`upstream.test:${port}`]: {}, 'rebind.test:443': {} });
    const plain = await viaProxy(run, `http://upstream.test:${port}/hello`);
    expect(plain.status).toBe(403);
    expect(plain.body).toBe(
      `upstream.test:${port} is refused: upstream.test resolves to a loopback address, which runs may not reach (network.private lists the ones they may)`,
    );
    const rebind = await connect(run, 'rebind.test:443');
    expect(rebind.status).toBe(403);
    expect(rebind.body).toContain('rebind.test resolves to a loopback address');
    expect(`${plain.body}${rebind.body}`).not.toMatch(/127\.0\.0\.1|93\.184/);
    expect(dial).not.toHaveBeenCalled();
    expect(events.map((e) => e.code)).toEqual(['private-address', 'private-address']);
  });

  it('a granted name that resolves to the metadata address', async () => {
    const run = await open({ 'metadata.test:80': {}, 'metadata.test:443': {} });
    const plain = await viaProxy(run, 'http://metadata.test/latest/meta-data/');
    expect(plain.status).toBe(403);
    expect(plain.body).toContain('metadata.test resolves to a link-local (cloud metadata) address');
    expect(plain.body).not.toContain('169.254');
    expect((await connect(run, 'metadata.test:443')).status).toBe(403);
    expect(dial).not.toHaveBeenCalled();
  });

  it('a CONNECT to a literal private address, before any dial', async () => {
    const run = await open({ '10.0.0.1:443': {} });
    const tunnel = await connect(run, '10.0.0.1:443');
    expect(tunnel.status).toBe(403);
    expect(tunnel.body).toContain('10.0.0.1 is a private address');
    expect(dial).not.toHaveBeenCalled();
  });

  it('a CONNECT to 2130706433 is a CONNECT to 127.0.0.1: decided, checked and dialled as that', async () => {
    const run = await open({ [`127.0.0.1:${port}`]: {} });
    const refused = await connect(run, `2130706433:${port}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('127.0.0.1 is a loopback address');
    expect(dial).not.toHaveBeenCalled();
    await proxy!.close();
    const allowed = await open({ [`127.0.0.1:${port}`]: {} }, { private: ['127.0.0.1/32'] });
    const tunnel = await connect(allowed, `0x7f.1:${port}`);
    expect(tunnel.status).toBe(200);
    expect(await getThrough(tunnel.socket, '/hello')).toContain('hello from upstream');
    expect(decided.map((t) => t.host)).toEqual(['127.0.0.1', '127.0.0.1']);
    expectOneDialTo(port);
  });

  it('a name that does not resolve', async () => {
    const run = await open({ 'nowhere.test:443': {} });
    const tunnel = await connect(run, 'nowhere.test:443');
    expect(tunnel.status).toBe(502);
    expect(tunnel.body).toBe('nowhere.test does not resolve (ENOTFOUND)');
    expect(events[0]).toMatchObject({ allowed: false, code: 'unresolved' });
  });

  it('an upstream that does not answer: 502 with the reason, before any 200', async () => {
    const closed = net.createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    const run = await open({ [`upstream.test:${closedPort}`]: {} }, { private: ['127.0.0.1/32'] });
    const tunnel = await connect(run, `upstream.test:${closedPort}`);
    expect(tunnel.status).toBe(502);
    expect(tunnel.body).toBe(`upstream.test:${closedPort} could not be reached (ECONNREFUSED)`);
    const [event] = await eventsSoon(1);
    expect(event).toMatchObject({ allowed: false, code: 'upstream', requests: 0 });
  });

  it('a connection beyond maxConnections', async () => {
    const run = await open(
      { [`upstream.test:${port}`]: {} },
      { private: ['127.0.0.1/32'], limits: { ...LIMITS, maxConnections: 1 } },
    );
    const first = await connect(run, `upstream.test:${port}`);
    expect(first.status).toBe(200);
    const second = await connect(run, `upstream.test:${port}`);
    expect(second.status).toBe(429);
    expect(second.body).toBe('This run already has 1 connections open, its limit');
    first.socket.destroy();
  });
});

describe('opaque tunnels and TLS names', () => {
  /** A TLS client through a tunnel to the raw server, naming `servername`; resolves when the tunnel closes or 300 ms pass. */
  async function hello(run: RunProxy, servername: string): Promise<void> {
    const { status, socket } = await connect(run, `upstream.test:${rawPort}`);
    expect(status).toBe(200);
    const client = tls.connect({ socket, servername, rejectUnauthorized: false });
    client.on('error', () => {});
    await new Promise<void>((done) => {
      socket.once('close', () => done());
      setTimeout(done, 300);
    });
    client.destroy();
  }

  it('a ClientHello naming another host is refused, and reaches nothing', async () => {
    const run = await open({ [`upstream.test:${rawPort}`]: {} }, { private: ['127.0.0.1/32'] });
    await hello(run, 'other.test');
    expect(rawReceived).toEqual([]);
    const [event] = await eventsSoon(1);
    expect(event).toMatchObject({ allowed: false, code: 'sni-mismatch' });
    expect(event!.reason).toBe('The TLS name other.test is not upstream.test, the host this tunnel was opened to');
  });

  it('a ClientHello naming the CONNECT host goes through', async () => {
    const run = await open({ [`upstream.test:${rawPort}`]: {} }, { private: ['127.0.0.1/32'] });
    await hello(run, 'upstream.test');
    await vi.waitFor(() => expect(rawReceived.length).toBeGreaterThan(0));
    expect(rawReceived[0]![0]).toBe(0x16);
  });

  it('a decision with headers goes to the TLS-terminating branch, with the checked address', async () => {
    const intercept = vi.fn<Intercept>((client) => void client.end('intercepted'));
    const grants = { [`upstream.test:${port}`]: { headers: { Authorization: 'Bearer x' } } };
    const run = await open(grants, { private: ['127.0.0.1/32'], intercept });
    const { status, socket } = await connect(run, `upstream.test:${port}`);
    expect(status).toBe(200);
    expect(await readAll(socket)).toBe('intercepted');
    expect(intercept.mock.calls[0]![2]).toMatchObject({
      target: { host: 'upstream.test', port },
      address: { address: '127.0.0.1', family: 4 },
      decision: { allow: true, headers: { Authorization: 'Bearer x' } },
    });
    expect(dial).not.toHaveBeenCalled();
  });
});

describe("the run's limits", () => {
  it('the byte cap cuts a large download, records byte-cap, and refuses what follows', async () => {
    const limits = { ...LIMITS, maxBytesIn: 1024 * 1024 };
    const run = await open({ [`upstream.test:${port}`]: {} }, { private: ['127.0.0.1/32'], limits });
    const { socket } = await connect(run, `upstream.test:${port}`);
    const body = await getThrough(socket, '/big');
    expect(body.length).toBeGreaterThan(512 * 1024);
    expect(body.length).toBeLessThan(3 * 1024 * 1024);
    const [event] = await eventsSoon(1);
    expect(event).toMatchObject({ allowed: true, code: 'byte-cap' });
    expect(event!.reason).toBe('This run received more than 1 MB, its cap; its connections were cut');
    expect(event!.bytesIn).toBeGreaterThan(1024 * 1024);
    const after = await viaProxy(run, `http://upstream.test:${port}/hello`);
    expect(after).toMatchObject({ status: 403, body: event!.reason });
    expect(events.at(-1)).toMatchObject({ allowed: false, code: 'byte-cap' });
  });

  it('the egress time limit cuts open tunnels', async () => {
    const run = await open(
      { [`upstream.test:${rawPort}`]: {} },
      { private: ['127.0.0.1/32'], limits: { ...LIMITS, maxSeconds: 1 } },
    );
    const { socket } = await connect(run, `upstream.test:${rawPort}`);
    socket.write('still here');
    await new Promise((done) => socket.once('close', done));
    const [event] = await eventsSoon(1);
    expect(event).toMatchObject({
      code: 'time-limit',
      reason: "This run's egress time (1 s) is over; its connections were cut",
    });
    expect(event!.durationMs).toBeGreaterThanOrEqual(900);
  });
});

describe('the socket and the summary', () => {
  it('listens in a 0700 folder, the socket 0600, and is gone after close', async () => {
    const run = await open({});
    expect(fs.statSync(path.dirname(run.socketPath)).mode & 0o777).toBe(0o700);
    expect(fs.statSync(run.socketPath).mode & 0o777).toBe(0o600);
    await run.close();
    proxy = null;
    expect(fs.existsSync(run.socketPath)).toBe(false);
  });

  it("with the sandbox's group, the socket is 0660 and that group's", async () => {
    const gid = process.getgid!();
    const run = await open({}, { socketGid: gid });
    const stat = fs.statSync(run.socketPath);
    expect(stat.mode & 0o777).toBe(0o660);
    expect(stat.gid).toBe(gid);
  });

  it('a tunnel that needs the TLS-terminating branch is refused when the proxy has none', async () => {
    const run = await open({ 'api.test:443': { limited: true } }, { private: ['127.0.0.1/32'] });
    NAMES['api.test'] = ['127.0.0.1'];
    const tunnel = await connect(run, 'api.test:443');
    delete NAMES['api.test'];
    expect(tunnel.status).toBe(502);
    expect(tunnel.body).toBe('api.test:443 needs the TLS-terminating branch');
    expect(dial).not.toHaveBeenCalled();
  });

  it('sums the events per host:port, and close answers the same', async () => {
    const run = await open({ [`upstream.test:${port}`]: {} }, { private: ['127.0.0.1/32'] });
    await viaProxy(run, `http://upstream.test:${port}/hello`);
    const { socket } = await connect(run, `upstream.test:${port}`);
    await getThrough(socket, '/hello');
    await viaProxy(run, 'http://elsewhere.test/');
    await connect(run, 'elsewhere.test:443');
    await eventsSoon(4);
    const lines = run.summary();
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ host: 'upstream.test', port, allowed: true, requests: 2 });
    expect(lines[0]!.bytesIn).toBe(events[0]!.bytesIn + events[1]!.bytesIn);
    expect(lines[0]!.reason).toBeUndefined();
    expect(lines.slice(1)).toEqual([
      {
        host: 'elsewhere.test',
        port: 80,
        allowed: false,
        requests: 0,
        bytesIn: 0,
        bytesOut: 0,
        reason: 'elsewhere.test:80 is not granted to test-skill',
      },
      {
        host: 'elsewhere.test',
        port: 443,
        allowed: false,
        requests: 0,
        bytesIn: 0,
        bytesOut: 0,
        reason: 'elsewhere.test:443 is not granted to test-skill',
      },
    ]);
    expect(await run.close()).toEqual(lines);
    proxy = null;
  });
});
