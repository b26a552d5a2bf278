import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installMethodGuard } from './methods';

let server: http.Server;
let port: number;
beforeAll(async () => {
  installMethodGuard();
  // Stands in for Next: its fetch `Request` throws on TRACE, which became a 500.
  server = http.createServer((req, res) => {
    try {
      new Request('http://127.0.0.1/', { method: req.method });
      res.end('ok');
    } catch {
      res.writeHead(500).end('Internal Server Error');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function send(method: string): Promise<{ status: number; body: string; allow?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: '/api/chat' }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body, allow: res.headers.allow }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('method guard', () => {
  it('answers TRACE with a JSON 405 before the app sees it', async () => {
    for (const method of ['TRACE', 'trace']) {
      const res = await send(method);
      expect(res.status).toBe(405);
      expect(JSON.parse(res.body)).toEqual({
        error: `Method ${method.toUpperCase()} is not supported by this server`,
        code: 'method_not_allowed:request',
      });
      expect(res.allow).toContain('GET');
    }
  });

  it('lets every other method through', async () => {
    expect(await send('GET')).toMatchObject({ status: 200, body: 'ok' });
    expect(await send('PROPFIND')).toMatchObject({ status: 200, body: 'ok' });
  });
});

/** Writes raw bytes (what no well-behaved client sends) and returns the whole answer. */
function raw(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (out += c));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

describe('requests Node cannot parse', () => {
  it('an unknown method (TRACK) or a broken request line is a JSON 400, not an empty one', async () => {
    for (const request of ['TRACK /api/chat HTTP/1.1\r\nHost: x\r\n\r\n', 'GET /\x01 HTTP/9\r\n\r\n']) {
      const answer = await raw(request);
      expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'bad_request:http' });
    }
  });

  it('oversized headers are a JSON 431', async () => {
    const answer = await raw(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain('"code":"bad_request:headers_too_large"');
  });
});
