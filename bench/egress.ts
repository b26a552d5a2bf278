/**
 * What a run's egress proxy costs: (a) the latency a plain-HTTP request through it adds to the same request made
 * directly to a loopback upstream, both on kept-alive connections (p50, p99); (b) the throughput of a 50 MB
 * download through a CONNECT tunnel against the same download made directly. The client reaches the proxy through
 * its Unix socket, as a run's forwarder does; the proxy decides, checks the address and meters as in a run. The
 * upstream and the client run in a child process, as a run's would, so the proxy does not share their thread; the
 * proxy's own CPU time per download is reported beside the ratio, which a busy machine moves a lot.
 *
 *   npx tsx bench/egress.ts [--quick]
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { openRunProxy } from '../server/egress/proxy';

/** Added at p50 by the proxy, in ms. */
export const EGRESS_ADDED_P50_MS = 2;
/** Throughput through a CONNECT tunnel over direct. */
export const EGRESS_THROUGHPUT_RATIO = 0.8;

const DOWNLOAD_BYTES = 50 * 1024 * 1024;

export interface EgressFigures {
  requests: number;
  direct: { p50: number; p99: number };
  proxied: { p50: number; p99: number };
  /** Through the sandbox's forwarder (TCP on loopback, then the proxy's socket), the whole path a run's request takes. */
  forwarded: { p50: number; p99: number };
  downloads: number;
  /** MB/s, the median of `downloads` runs. */
  directMBs: number;
  tunnelMBs: number;
  forwardedMBs: number;
  /** Tunnel over direct, the median of each round's pair (a direct download, then one through the tunnel). */
  ratio: number;
  /** The same through the forwarder and the tunnel. */
  forwardedRatio: number;
  /** CPU time of the proxy's process for one 50 MB tunnel download (median): what the proxy itself costs. */
  proxyCpuMs: number;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

function median(values: number[]): number {
  return quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

function get(options: http.RequestOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(options, (res) => {
      res.on('data', () => {});
      res.on('end', resolve);
    });
    req.on('error', reject);
    req.end();
  });
}

async function latency(rounds: number, once: () => Promise<void>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < Math.min(200, rounds); i++) await once();
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await once();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99) };
}

/** Reads a whole HTTP/1.1 reply of `DOWNLOAD_BYTES` from `socket` after sending the GET; MB/s. */
function download(socket: net.Socket): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let received = 0;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    socket.once('error', reject);
    socket.once('close', () => {
      if (received < DOWNLOAD_BYTES) reject(new Error(`the download stopped at ${received} bytes`));
      else resolve(received / (1024 * 1024) / ((performance.now() - started) / 1000));
    });
    socket.write('GET /download HTTP/1.1\r\nHost: upstream.test\r\nConnection: close\r\n\r\n');
  });
}

/** Where the client meets the proxy: its Unix socket, or the forwarder's TCP port (as inside a run). */
type Via = { socketPath: string } | { port: number };

/** A CONNECT to the proxy; the socket once the tunnel is up. */
function tunnel(via: Via, authority: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = 'socketPath' in via ? net.connect(via.socketPath) : net.connect(via.port, '127.0.0.1');
    socket.setNoDelay(true);
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
    let seen = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      const end = seen.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      if (!seen.subarray(0, 12).toString().endsWith('200')) reject(new Error(seen.toString()));
      if (seen.length > end + 4) socket.unshift(seen.subarray(end + 4));
      resolve(socket);
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

/** What the parent asks the child (the upstream and the client, in a process of their own, as a run's would be). */
type Ask = { kind: 'latency'; requests: number; via?: Via } | { kind: 'download'; via?: Via };

/** The child: a loopback upstream and its client, answering the parent's questions over IPC. */
async function child(): Promise<void> {
  const payload = Buffer.alloc(1024 * 1024, 'x');
  const upstream = http.createServer((req, res) => {
    if (req.url !== '/download') return void res.end('ok');
    res.writeHead(200, { 'content-length': String(DOWNLOAD_BYTES) });
    let left = DOWNLOAD_BYTES / payload.length;
    const more = () => {
      while (left > 0) {
        left--;
        if (!res.write(payload)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const port = (upstream.address() as AddressInfo).port;
  const authority = `upstream.test:${port}`;
  process.on('message', async (ask: Ask) => {
    if (ask.kind === 'latency') {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const proxied = { path: `http://${authority}/small`, headers: { host: authority }, agent };
      const options: http.RequestOptions = !ask.via
        ? { host: '127.0.0.1', port, path: '/small', agent }
        : 'socketPath' in ask.via
          ? { socketPath: ask.via.socketPath, ...proxied }
          : { host: '127.0.0.1', port: ask.via.port, ...proxied };
      const figures = await latency(ask.requests, () => get(options));
      agent.destroy();
      process.send?.(figures);
    } else {
      const socket = ask.via ? await tunnel(ask.via, authority) : net.connect(port, '127.0.0.1');
      process.send?.(await download(socket));
    }
  });
  process.send?.({ ready: true });
}

/** The sandbox's forwarder (server/toolchain/egress-forward.py), run on the host with a port the system picks. */
function startForwarder(socketPath: string): { process: ChildProcess; port: Promise<number> } {
  const script = path.join(import.meta.dirname, '..', 'server', 'toolchain', 'egress-forward.py');
  const child = spawn('/usr/bin/python3', ['-I', '-S', script, socketPath, '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ready = /^ready (\d+)/m.exec(out);
      if (ready) resolve(Number(ready[1]));
    });
    child.once('exit', (code) => reject(new Error(`the forwarder exited (${code}) before it listened`)));
  });
  return { process: child, port };
}

export async function benchEgress({ quick = false } = {}): Promise<EgressFigures> {
  const requests = quick ? 500 : 3000;
  const downloads = quick ? 3 : 7;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-bench-egress-'));
  const proxy = await openRunProxy({
    socketPath: path.join(tmp, 'run.sock'),
    decide: async () => ({ allow: true, skills: ['bench'] }),
    private: ['127.0.0.1/32'],
    resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    limits: {
      maxBytesIn: Number.MAX_SAFE_INTEGER,
      maxBytesOut: Number.MAX_SAFE_INTEGER,
      maxSeconds: 3600,
      maxConnections: 64,
    },
    onEvent: () => {},
  });
  const forwarder = startForwarder(proxy.socketPath);
  const worker = fork(import.meta.filename, ['--child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = <T>() => new Promise<T>((resolve) => worker.once('message', (m) => resolve(m as T)));
  const ask = <T>(question: Ask) => {
    const answer = next<T>();
    worker.send(question);
    return answer;
  };
  try {
    await next();
    type Latency = { p50: number; p99: number };
    const direct = await ask<Latency>({ kind: 'latency', requests });
    const socket = { socketPath: proxy.socketPath };
    const proxied = await ask<Latency>({ kind: 'latency', requests, via: socket });
    const forwarderPort = await forwarder.port;
    const forwarded = await ask<Latency>({ kind: 'latency', requests, via: { port: forwarderPort } });
    const directRuns: number[] = [];
    const tunnelRuns: number[] = [];
    const forwardedRuns: number[] = [];
    const proxyCpu: number[] = [];
    for (let i = 0; i < downloads; i++) {
      directRuns.push(await ask<number>({ kind: 'download' }));
      const before = process.cpuUsage();
      tunnelRuns.push(await ask<number>({ kind: 'download', via: socket }));
      const used = process.cpuUsage(before);
      proxyCpu.push((used.user + used.system) / 1000);
      forwardedRuns.push(await ask<number>({ kind: 'download', via: { port: forwarderPort } }));
    }
    return {
      requests,
      direct,
      proxied,
      forwarded,
      downloads,
      directMBs: median(directRuns),
      tunnelMBs: median(tunnelRuns),
      forwardedMBs: median(forwardedRuns),
      ratio: median(tunnelRuns.map((t, i) => t / directRuns[i]!)),
      forwardedRatio: median(forwardedRuns.map((t, i) => t / directRuns[i]!)),
      proxyCpuMs: median(proxyCpu),
    };
  } finally {
    worker.kill();
    forwarder.process.kill();
    await proxy.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export function egressTable(f: EgressFigures): string {
  const ms = (n: number) => n.toFixed(2);
  const addedP50 = f.proxied.p50 - f.direct.p50;
  const addedP99 = f.proxied.p99 - f.direct.p99;
  const forwardedP50 = f.forwarded.p50 - f.direct.p50;
  return [
    '| path | requests | p50 ms | p99 ms |',
    '|---|---|---|---|',
    `| direct (loopback, kept alive) | ${f.requests} | ${ms(f.direct.p50)} | ${ms(f.direct.p99)} |`,
    `| through the run's proxy (Unix socket, absolute form) | ${f.requests} | ${ms(f.proxied.p50)} | ${ms(f.proxied.p99)} |`,
    `| through the sandbox's forwarder and the proxy (a run's whole path) | ${f.requests} | ${ms(f.forwarded.p50)} | ${ms(f.forwarded.p99)} |`,
    '',
    '| 50 MB download | runs | MB/s (median) |',
    '|---|---|---|',
    `| direct | ${f.downloads} | ${f.directMBs.toFixed(0)} |`,
    `| through a CONNECT tunnel | ${f.downloads} | ${f.tunnelMBs.toFixed(0)} (the proxy's CPU: ${f.proxyCpuMs.toFixed(0)} ms per download) |`,
    `| through the forwarder and a CONNECT tunnel | ${f.downloads} | ${f.forwardedMBs.toFixed(0)} |`,
    '',
    `- ${addedP50 <= EGRESS_ADDED_P50_MS ? 'PASS' : 'MISS'} latency added by the proxy at p50 within ${EGRESS_ADDED_P50_MS} ms: ${ms(addedP50)} ms (p99: ${ms(addedP99)} ms)`,
    `- ${forwardedP50 <= EGRESS_ADDED_P50_MS ? 'PASS' : 'MISS'} latency added by a run's whole path (forwarder + proxy) at p50 within ${EGRESS_ADDED_P50_MS} ms: ${ms(forwardedP50)} ms (p99: ${ms(f.forwarded.p99 - f.direct.p99)} ms)`,
    `- ${f.ratio >= EGRESS_THROUGHPUT_RATIO ? 'PASS' : 'MISS'} CONNECT throughput at least ${EGRESS_THROUGHPUT_RATIO}x direct: ${f.ratio.toFixed(2)}x (the median of ${f.downloads} pairs)`,
    `- ${f.forwardedRatio >= EGRESS_THROUGHPUT_RATIO ? 'PASS' : 'MISS'} through the forwarder too, at least ${EGRESS_THROUGHPUT_RATIO}x direct: ${f.forwardedRatio.toFixed(2)}x`,
  ].join('\n');
}

if (process.argv.includes('--child')) {
  void child();
} else if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  benchEgress({ quick: process.argv.includes('--quick') }).then(
    (figures) => {
      console.log(egressTable(figures));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
