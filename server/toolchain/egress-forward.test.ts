/**
 * The in-sandbox forwarder (egress-forward.py) on its own, on the host: a TCP port relayed to a Unix socket, with
 * large bodies both ways, half-closes passed on, and many connections at once in its one thread.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const FORWARDER = path.join(import.meta.dirname, 'egress-forward.py');

let tmp: string;
let echo: net.Server;
let forwarder: ChildProcess;
let port: number;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-forward-'));
  const socket = path.join(tmp, 'echo.sock');
  // Echoes every byte, and ends its side once the client has ended its own.
  echo = net.createServer((c) => c.pipe(c));
  await new Promise<void>((resolve) => echo.listen(socket, resolve));
  forwarder = spawn('/usr/bin/python3', ['-I', '-S', FORWARDER, socket, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  port = await new Promise<number>((resolve, reject) => {
    forwarder.stdout?.once('data', (line: Buffer) => {
      const match = /^ready (\d+)\n$/.exec(line.toString());
      if (match) resolve(Number(match[1]));
      else reject(new Error(`unexpected: ${line}`));
    });
    forwarder.once('exit', (code) => reject(new Error(`forwarder exited ${code}`)));
  });
});

afterAll(async () => {
  forwarder?.kill();
  await new Promise<void>((resolve) => (echo ? echo.close(() => resolve()) : resolve()));
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Sends `body`, ends the sending side, and resolves with all that came back before the other side ended. */
function roundTrip(body: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const c = net.connect(port, '127.0.0.1', () => c.end(body));
    c.on('data', (d) => chunks.push(d));
    c.on('end', () => resolve(Buffer.concat(chunks)));
    c.on('error', reject);
  });
}

it('relays 8 MB both ways intact and passes the half-close on', async () => {
  const body = Buffer.alloc(8 << 20);
  for (let i = 0; i < body.length; i += 4) body.writeUInt32LE(i, i);
  const back = await roundTrip(body);
  expect(back.length).toBe(body.length);
  expect(back.equals(body)).toBe(true);
});

it('serves 100 connections at once in its one process', async () => {
  const bodies = Array.from({ length: 100 }, (_, i) => Buffer.from(`connection ${i} `.repeat(1000)));
  const backs = await Promise.all(bodies.map(roundTrip));
  expect(backs.every((back, i) => back.equals(bodies[i] as Buffer))).toBe(true);
  const threads = fs.readFileSync(`/proc/${forwarder.pid}/status`, 'utf8').match(/^Threads:\s+(\d+)/m)?.[1];
  expect(threads).toBe('1');
});

it('closes a client whose proxy connection cannot be made, and goes on serving', async () => {
  const moved = path.join(tmp, 'moved.sock');
  const socket = path.join(tmp, 'echo.sock');
  fs.renameSync(socket, moved);
  try {
    // Closed at once, unread bytes and all (a reset), with nothing relayed.
    const outcome = await roundTrip(Buffer.from('lost')).then(
      (back) => back.toString(),
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect(['', 'ECONNRESET']).toContain(outcome);
  } finally {
    fs.renameSync(moved, socket);
  }
  await expect(roundTrip(Buffer.from('back'))).resolves.toEqual(Buffer.from('back'));
});
