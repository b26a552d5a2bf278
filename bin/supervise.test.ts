/**
 * `npm start`'s process side, with a stand-in for Next: a server that starts a worker of its own, then handles
 * (or ignores) SIGTERM. The supervisor runs in its own Node process, signalled as a terminal or a service manager
 * would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../test/until';

const PROJECT = path.resolve(import.meta.dirname, '..');
const posixOnly = process.platform === 'win32' ? it.skip : it;

/** The stand-in server: `node server.mjs <mode> <pidfile>`; writes "serverPid workerPid" once both run. */
const SERVER = `
import { spawn } from 'node:child_process';
import fs from 'node:fs';
const [mode, pidfile] = process.argv.slice(2);
const worker = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
if (mode === 'exits-on-term') process.on('SIGTERM', () => process.exit(0)); // leaves its worker behind
if (mode === 'ignores-term') process.on('SIGTERM', () => {});
fs.writeFileSync(pidfile, process.pid + ' ' + worker.pid);
setInterval(() => {}, 1000);
`;

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-supervise-'));
  fs.writeFileSync(path.join(tmp, 'server.mjs'), SERVER);
  fs.writeFileSync(
    path.join(tmp, 'runner.mjs'),
    `import { supervise } from ${JSON.stringify(path.join(PROJECT, 'bin', 'supervise.ts'))};
const [mode, pidfile] = process.argv.slice(2);
const code = await supervise(process.execPath, [${JSON.stringify(path.join(tmp, 'server.mjs'))}, mode, pidfile], {
  cwd: process.cwd(), graceMs: 800, log: (line) => console.log(line),
});
process.exit(code);`,
  );
});
/** Every process a test started: killed at the end if a failing test left one behind. */
const started: number[] = [];
afterAll(() => {
  for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A process that exists and is not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function start(mode: string): Promise<{ runner: ChildProcess; pids: number[]; out: () => string }> {
  const pidfile = path.join(tmp, `${mode}.pids`);
  const runner = spawn(process.execPath, ['--import', 'tsx', path.join(tmp, 'runner.mjs'), mode, pidfile], {
    cwd: PROJECT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  runner.stdout!.on('data', (c) => (out += c));
  runner.stderr!.on('data', (c) => (out += c));
  if (runner.pid !== undefined) started.push(runner.pid);
  const pids = await until(
    () => (fs.existsSync(pidfile) ? fs.readFileSync(pidfile, 'utf8').split(' ').map(Number) : undefined),
    15_000,
  );
  started.push(...pids);
  return { runner, pids, out: () => out };
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

describe('supervise', () => {
  posixOnly(
    'SIGTERM stops the server and the worker it started; the exit code is the server’s',
    async () => {
      const { runner, pids } = await start('exits-on-term');
      expect(pids.every(alive)).toBe(true);
      const done = exited(runner);
      runner.kill('SIGTERM');
      expect(await done).toBe(0);
      await until(() => (pids.some(alive) ? undefined : true), 3_000);
    },
    30_000,
  );

  posixOnly(
    'Ctrl-C (SIGINT) stops the server and its worker, reported as 130',
    async () => {
      const { runner, pids } = await start('default');
      const done = exited(runner);
      runner.kill('SIGINT');
      expect(await done).toBe(130);
      await until(() => (pids.some(alive) ? undefined : true), 3_000);
    },
    30_000,
  );

  posixOnly(
    'a server that ignores SIGTERM is killed after the grace period',
    async () => {
      const { runner, pids, out } = await start('ignores-term');
      const done = exited(runner);
      const sent = Date.now();
      runner.kill('SIGTERM');
      expect(await done).toBe(137);
      expect(Date.now() - sent).toBeGreaterThanOrEqual(700);
      expect(out()).toContain('killing it');
      await until(() => (pids.some(alive) ? undefined : true), 3_000);
    },
    30_000,
  );
});
