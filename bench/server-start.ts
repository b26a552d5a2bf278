/**
 * Server start with many skills: `next start` on the production build with SKILLCHAT_SKILL_ROOTS pointing at the
 * generated tree, timed from spawn to the first page served (GET /) and to the first scan's log line, with the
 * server's RSS (process tree) once the scan is done. Needs a build (`npm run build`); skipped without one.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { needsBuild } from '../bin/build-state';

export const PROJECT = path.join(import.meta.dirname, '..');

export interface ServerStartFigures {
  skills: number;
  firstPageMs: number;
  firstPageStatus: number;
  scanLoggedMs: number;
  rssMB: number;
}

/** What a measured server inherits: no keys, no telemetry, production mode; the caller adds its settings. */
export const SERVER_ENV = {
  PATH: process.env.PATH ?? '',
  NODE_ENV: 'production',
  NEXT_TELEMETRY_DISABLED: '1',
} as const;

/** `next start` of the production build on 127.0.0.1:`port`, in its own process group (`process.kill(-pid)`). */
export function spawnBuiltServer(port: number, env: NodeJS.ProcessEnv): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(path.join(PROJECT, 'node_modules', '.bin', 'next'), ['start', '-H', '127.0.0.1', '-p', String(port)], {
    cwd: PROJECT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** RSS of a process and its descendants (Linux /proc), in MB. */
export function treeRssMB(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      /* gone */
    }
  }
  let kb = 0;
  const visit = (p: number) => {
    try {
      const status = fs.readFileSync(`/proc/${p}/status`, 'utf8');
      kb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    } catch {
      /* gone */
    }
    for (const c of children.get(p) ?? []) visit(c);
  };
  visit(pid);
  return kb / 1024;
}

/** A production build of the current sources (a stale one would measure old code). */
export function hasBuild(): boolean {
  return !needsBuild(PROJECT);
}

export async function benchServerStart(root: string, skills: number, workDir: string): Promise<ServerStartFigures> {
  const port = await freePort();
  const home = path.join(workDir, 'server-home');
  fs.mkdirSync(home, { recursive: true });
  const started = performance.now();
  const child = spawnBuiltServer(port, {
    ...process.env,
    SKILLCHAT_SKILL_ROOTS: root,
    SKILLCHAT_DB: path.join(workDir, 'server-start.db'),
    SKILLCHAT_HOME: home,
    SKILLCHAT_WATCH: '0',
    SKILLCHAT_HOST: '127.0.0.1',
  });
  let scanLoggedMs = Number.NaN;
  const scanned = new Promise<void>((resolve) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (Number.isNaN(scanLoggedMs) && /\[skillchat\] \d+ skills .* scanned in/.test(out)) {
        scanLoggedMs = performance.now() - started;
        resolve();
      }
    });
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  try {
    let firstPageMs = Number.NaN;
    let firstPageStatus = 0;
    const deadline = started + 120_000;
    while (Number.isNaN(firstPageMs)) {
      if (performance.now() > deadline) throw new Error(`server did not answer within 120 s: ${stderr.slice(-1000)}`);
      try {
        const response = await fetch(`http://127.0.0.1:${port}/`, { redirect: 'manual' });
        await response.arrayBuffer();
        firstPageMs = performance.now() - started;
        firstPageStatus = response.status;
      } catch {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    await Promise.race([scanned, new Promise((r) => setTimeout(r, 120_000))]);
    return { skills, firstPageMs, firstPageStatus, scanLoggedMs, rssMB: treeRssMB(child.pid!) };
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
}
