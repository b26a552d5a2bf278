/**
 * The seccomp filter, built from seccomp-filter.py into a scratch runtime folder and loaded by a real bwrap: a
 * nested user namespace is refused, ordinary process work (a background job, fork) is not.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkSeccompFilter,
  ensureSeccompFilter,
  SECCOMP_CONDITIONS,
  SECCOMP_DENIED,
  SECCOMP_SHARED_MEMORY,
  seccompGenerator,
} from './seccomp';

const GENERATOR = seccompGenerator(path.join(import.meta.dirname, '..', '..'));
const BWRAP = '/usr/bin/bwrap';
const BASE = [
  ...['--ro-bind', '/usr', '/usr', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64'],
  ...['--symlink', 'usr/bin', '/bin', '--proc', '/proc', '--dev', '/dev', '--unshare-all', '--die-with-parent'],
];

function whyNot(): string | null {
  if (!fs.existsSync(BWRAP)) return 'bwrap is not installed (Debian bubblewrap)';
  if (spawnSync('/usr/bin/python3', ['-c', 'import seccomp']).status !== 0) {
    return 'python3-seccomp is not installed';
  }
  if (spawnSync(BWRAP, [...BASE, '--', 'true']).status !== 0) return 'bwrap cannot start a sandbox here';
  return null;
}
const skipReason = whyNot();

/** Runs `command` in bwrap with the filter on fd 3. */
function sandboxed(filter: string, command: string[]): Promise<{ code: number | null; out: string }> {
  const fd = fs.openSync(filter, 'r');
  const child = spawn(BWRAP, [...BASE, '--seccomp', '3', '--', ...command], { stdio: ['ignore', 'pipe', 'pipe', fd] });
  fs.closeSync(fd);
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

it('SECCOMP_DENIED is what the generator denies', () => {
  const listed = spawnSync('/usr/bin/python3', [GENERATOR, '--list'], { encoding: 'utf8' });
  expect(listed.status).toBe(0);
  expect(listed.stdout.trim().split('\n')).toEqual([...SECCOMP_DENIED]);
});

it('the no-shared-memory variant denies SECCOMP_SHARED_MEMORY too', () => {
  const listed = spawnSync('/usr/bin/python3', [GENERATOR, '--no-shared-memory', '--list'], { encoding: 'utf8' });
  expect(listed.status).toBe(0);
  const plain = SECCOMP_DENIED.filter((name) => !(name in SECCOMP_CONDITIONS));
  const conditional = SECCOMP_DENIED.filter((name) => name in SECCOMP_CONDITIONS);
  expect(listed.stdout.trim().split('\n')).toEqual([...plain, ...SECCOMP_SHARED_MEMORY, ...conditional]);
});

describe.skipIf(skipReason !== null)(`the filter under bwrap${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let runtime: string;
  let filter: string;

  beforeAll(async () => {
    runtime = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-seccomp-'));
    const built = await ensureSeccompFilter(runtime, GENERATOR);
    if (built.path === null) throw new Error(built.reason);
    filter = built.path;
  });
  afterAll(() => fs.rmSync(runtime, { recursive: true, force: true }));

  it('is loaded: the process reports seccomp filter mode', async () => {
    const run = await sandboxed(filter, ['grep', '^Seccomp:', '/proc/self/status']);
    expect(run.out).toMatch(/Seccomp:\s+2/);
  });

  it('refuses a nested user namespace', async () => {
    const run = await sandboxed(filter, ['unshare', '-r', 'true']);
    expect(run.code).not.toBe(0);
    expect(run.out).toMatch(/Operation not permitted/);
  });

  it('lets a shell run a background job and wait for it', async () => {
    expect(await sandboxed(filter, ['bash', '-c', 'true & wait'])).toEqual({ code: 0, out: '' });
  });

  it('lets Python fork', async () => {
    const run = await sandboxed(filter, [
      'python3',
      '-c',
      'import os; pid = os.fork(); os._exit(0) if pid == 0 else os.wait()',
    ]);
    expect(run.code).toBe(0);
  });

  it('is kept while the generator is unchanged, and rebuilt when it changes', async () => {
    expect(await checkSeccompFilter(runtime, GENERATOR)).toEqual({ path: filter });
    const edited = path.join(runtime, 'seccomp-filter.py');
    fs.writeFileSync(edited, `${fs.readFileSync(GENERATOR, 'utf8')}\n# edited\n`);
    expect((await checkSeccompFilter(runtime, edited)).path).toBeNull();
    expect(await ensureSeccompFilter(runtime, edited)).toEqual({ path: filter });
    expect(await checkSeccompFilter(runtime, edited)).toEqual({ path: filter });
  });
});

it('says what is missing when the generator cannot run', async () => {
  const runtime = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-seccomp-'));
  try {
    const broken = path.join(runtime, 'broken.py');
    fs.writeFileSync(broken, 'import sys\nsys.exit("no luck")\n');
    const built = await ensureSeccompFilter(runtime, broken);
    expect(built).toEqual({ path: null, reason: 'building the filter failed: no luck' });
    expect(fs.readdirSync(runtime)).toEqual(['broken.py']);
    expect(await ensureSeccompFilter(runtime, path.join(runtime, 'absent.py'))).toEqual({
      path: null,
      reason: 'the generator absent.py is missing',
    });
  } finally {
    fs.rmSync(runtime, { recursive: true, force: true });
  }
});
