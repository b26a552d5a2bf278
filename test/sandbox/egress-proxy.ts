/**
 * What the sandbox's egress tests talk to: a stand-in for a run's proxy (an HTTP proxy on a Unix socket that
 * tunnels CONNECT and forwards absolute-form requests) and loopback upstreams, plain and TLS, with a test CA that a
 * trust bundle of the test's own carries. Names map to loopback through `hosts` (`upstream.test`, `tls.test`);
 * anything else is refused with 403, so nothing ever leaves the machine.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';

export interface TestProxy {
  socket: string;
  /** `CONNECT host:port` and `GET http://host:port/path` lines, in order. */
  seen: string[];
  close(): Promise<void>;
}

/**
 * An HTTP proxy on `<dir>/<name>`. The socket is made 0666 unless told otherwise: as root the run's uid (not the
 * server's) connects to it. A real proxy can instead give it to the sandbox gid with 0660.
 */
export async function startTestProxy(
  dir: string,
  hosts: Record<string, string>,
  options: { name?: string; mode?: number; gid?: number } = {},
): Promise<TestProxy> {
  const socket = path.join(dir, options.name ?? 'proxy.sock');
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute-form requests only\n');
      return;
    }
    const address = hosts[url.hostname];
    if (!address) {
      res.writeHead(403).end(`refused: ${url.hostname}\n`);
      return;
    }
    const upstream = http.request(
      {
        host: address,
        port: url.port || 80,
        path: `${url.pathname}${url.search}`,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end('upstream unreachable\n'));
    req.pipe(upstream);
  });
  server.on('connect', (req, client, head) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const address = hosts[host ?? ''];
    if (!address) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = net.connect(Number(port), address, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  fs.chmodSync(socket, options.mode ?? 0o666);
  if (options.gid !== undefined) fs.chownSync(socket, process.getuid?.() ?? 0, options.gid);
  return {
    socket,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface TestUpstreams {
  httpPort: number;
  httpsPort: number;
  /** PEM of the CA that signed `tls.test`'s certificate. */
  caPem: string;
  /** What each upstream received, in order: scheme, Host header, path, Authorization header. */
  received: Array<{ scheme: string; host: string; path: string; authorization?: string }>;
  close(): Promise<void>;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: 'ignore' });
}

/** A test CA and a certificate for `tls.test` (and `upstream.test`) signed by it, made with openssl in `dir`. */
function testCertificates(dir: string): { ca: string; key: string; cert: string } {
  openssl(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2'].concat([
      '-subj',
      '/CN=skillchat test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]),
    dir,
  );
  openssl(
    ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=tls.test'],
    dir,
  );
  fs.writeFileSync(
    path.join(dir, 'leaf.ext'),
    'subjectAltName=DNS:tls.test,DNS:upstream.test\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nauthorityKeyIdentifier=keyid\nsubjectKeyIdentifier=hash\n',
  );
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'leaf.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'leaf.pem',
    ].concat(['-days', '2', '-extfile', 'leaf.ext']),
    dir,
  );
  const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
  return { ca: read('ca.pem'), key: read('leaf.key'), cert: read('leaf.pem') };
}

/** Loopback upstreams answering `<scheme> <path>`: HTTP, and HTTPS with a certificate from a test CA. */
export async function startTestUpstreams(dir: string): Promise<TestUpstreams> {
  const certs = testCertificates(dir);
  const received: TestUpstreams['received'] = [];
  const answer = (scheme: string) => (req: http.IncomingMessage, res: http.ServerResponse) => {
    received.push({
      scheme,
      host: req.headers.host ?? '',
      path: req.url ?? '',
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`${scheme} upstream says hello to ${req.url}\n`);
  };
  const plain = http.createServer(answer('http'));
  const tls = https.createServer({ key: certs.key, cert: certs.cert }, answer('https'));
  const listen = (server: net.Server) =>
    new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
    );
  const [httpPort, httpsPort] = [await listen(plain), await listen(tls)];
  const close = (server: http.Server) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    httpPort,
    httpsPort,
    caPem: certs.ca,
    received,
    close: async () => {
      await Promise.all([close(plain), close(tls)]);
    },
  };
}
