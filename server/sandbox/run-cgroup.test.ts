/**
 * A cgroup per run, on the real bubblewrap backend: memfd and shared memory count toward a run's memory (the red-team
 * run's sixteen 192 MB memfds), the fallback without a cgroup refuses them instead, and two servers lending the same
 * uid do not share a process budget.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folderFiles } from '../workspace/run-files';
import { createBwrapBackend, isRoot } from './bwrap';
import { DEFAULT_SANDBOX_LIMITS, type SandboxBackend, type SandboxLimits } from './port';
import { createRunCgroup, findRunCgroups, takeRunCgroup } from './run-cgroup';
import { bwrapAvailability } from './select';

const MEMFD_BOMB =
  "import os;b=b'x'*(64<<20);fs=[os.memfd_create('m') for _ in range(16)];[os.write(f,b) for f in fs for _ in range(3)]";
const UID = 100_002;

const bwrap = await bwrapAvailability(65534);
const cgroups = await findRunCgroups('auto');
const skip = !bwrap.ok ? 'bubblewrap cannot run here' : !isRoot() ? 'needs root (a uid per run)' : null;

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-cgroup-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A server's backend: its own data folder and runtime folder (the seccomp filter is built there). */
function instance(name: string, cgroup: 'auto' | 'off'): SandboxBackend {
  const runtimeDir = path.join(tmp, name, 'runtime');
  fs.mkdirSync(runtimeDir, { recursive: true });
  return createBwrapBackend({ sandboxGid: 100_000, runtimeDir, cgroups: () => findRunCgroups(cgroup) });
}

function run(
  backend: SandboxBackend,
  command: string,
  limits: Partial<SandboxLimits> = {},
  dir = fs.mkdtempSync(path.join(tmp, 'ws-')),
) {
  const all = { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: 30_000, ...limits };
  return backend.run({
    argv: ['bash', '-c', command],
    mounts: [],
    workspace: folderFiles(dir, { maxBytes: all.maxWorkspaceBytes, maxEntries: all.maxWorkspaceEntries }),
    uid: UID,
    limits: all,
  });
}

function memAvailable(): number {
  const line = /MemAvailable:\s+(\d+) kB/.exec(fs.readFileSync('/proc/meminfo', 'utf8'));
  return Number(line?.[1] ?? 0) * 1024;
}

const MB = 1024 * 1024;

describe.skipIf(skip !== null || !cgroups.ok)(`with a cgroup per run${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('stops the memfd reproduction at the run limit and the host does not lose more', async () => {
    const backend = instance('a', 'auto');
    const before = memAvailable();
    let lowest = before;
    const sampler = setInterval(() => {
      lowest = Math.min(lowest, memAvailable());
    }, 20);
    const result = await run(backend, `python3 -c "${MEMFD_BOMB}"; echo "python: $?"`, { memoryMb: 256 });
    clearInterval(sampler);
    expect(result.stop).toBe('memory');
    expect(result.error).toMatch(/more than its 256 MB of memory/);
    // The kernel killed the process holding the pages (SIGKILL); the shell that started it goes on.
    expect(result.stdout).toBe('python: 137\n');
    // The kernel's own count of the run's pages, memfd included: never past the limit.
    expect(result.memoryPeakBytes).toBeGreaterThan(200 * MB);
    expect(result.memoryPeakBytes).toBeLessThanOrEqual(256 * MB);
    // Without the cgroup the host lost 3 GB; other work on the machine moves this figure a little.
    console.log(
      `memfd bomb: peak ${Math.round((result.memoryPeakBytes ?? 0) / MB)} MB, host available fell ${Math.round((before - lowest) / MB)} MB`,
    );
    expect(before - lowest).toBeLessThan(1024 * MB);
  });

  it('counts /dev/shm and /tmp toward the same limit', async () => {
    const backend = instance('a', 'auto');
    const result = await run(
      backend,
      'head -c 150M /dev/zero > /dev/shm/a; head -c 150M /dev/zero > /tmp/b; python3 -c "b=bytearray(100<<20)"; echo "python: $?"',
      { memoryMb: 256, tmpMb: 200 },
    );
    expect(result.stop).toBe('memory');
    // Files in a tmpfs cannot be freed by a kill: the kernel kills what it can, and python never gets its 100 MB.
    expect(result.stdout).not.toContain('python: 0');
  });

  it("starts the run's first process in its own cgroup (moved in while bwrap waits, before the command)", async () => {
    const result = await run(instance('a', 'auto'), 'cat /proc/self/cgroup');
    const lines = result.stdout.split('\n');
    expect(lines.find((l) => /:memory:/.test(l) || /^0::/.test(l))).toMatch(/\/skillchat-run-[0-9a-f-]+$/);
    if (cgroups.ok && cgroups.pidsParent && cgroups.version === 'v1') {
      expect(lines.find((l) => /:pids:/.test(l))).toMatch(/\/skillchat-run-[0-9a-f-]+$/);
    }
  });

  it("removes the run cgroups a server that is gone left behind, and not a live server's", async () => {
    if (!cgroups.ok) return;
    const gone = spawnSync('/usr/bin/true').pid;
    const left = path.join(cgroups.memoryParent, `skillchat-run-${gone}-crashed`);
    const live = path.join(cgroups.memoryParent, `skillchat-run-${process.ppid}-running`);
    fs.mkdirSync(left);
    fs.mkdirSync(live);
    try {
      expect((await findRunCgroups('auto')).ok).toBe(true);
      expect(fs.existsSync(left)).toBe(false);
      expect(fs.existsSync(live)).toBe(true);
    } finally {
      for (const dir of [left, live]) if (fs.existsSync(dir)) fs.rmdirSync(dir);
    }
  });

  it('removes a cgroup with whatever is still in it', async () => {
    if (!cgroups.ok) return;
    const cgroup = await createRunCgroup(cgroups, { memoryMb: 64, maxProcesses: 8 });
    const dirs = cgroup.procsFiles.map((f) => path.dirname(f));
    expect(dirs.every((d) => fs.existsSync(d))).toBe(true);
    expect(fs.readFileSync(path.join(dirs[0] as string, 'memory.limit_in_bytes'), 'utf8').trim()).toBe(String(64 * MB));
    const child = spawn('/usr/bin/sleep', ['30'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    cgroup.enter(child.pid as number);
    expect(fs.readFileSync(cgroup.procsFiles[0] as string, 'utf8').trim()).toBe(String(child.pid));
    await cgroup.remove();
    expect(await exited).toBe('SIGKILL');
    expect(dirs.some((d) => fs.existsSync(d))).toBe(false);
  });

  it('makes the next cgroup ahead once runs with the same limits repeat, each for one run only', async () => {
    const support = await findRunCgroups('auto');
    if (!support.ok) return;
    const limits = { memoryMb: 64, maxProcesses: 8 };
    const ahead = () => support.madeAhead.get('64:8') ?? [];
    const first = await takeRunCgroup(support, limits);
    first.makeNext();
    await first.cgroup.remove();
    // A server that runs once leaves nothing made ahead.
    expect(ahead()).toHaveLength(0);
    const second = await takeRunCgroup(support, limits);
    await second.cgroup.remove();
    second.makeNext();
    await waitFor(() => ahead().length === 1);
    const made = ahead()[0]?.procsFiles;
    expect(made?.every((f) => fs.existsSync(f))).toBe(true);
    const third = await takeRunCgroup(support, limits);
    expect(third.cgroup.procsFiles).toEqual(made);
    expect(third.cgroup.procsFiles).not.toEqual(second.cgroup.procsFiles);
    expect(ahead()).toHaveLength(0);
    await third.cgroup.remove();
  });

  it.skipIf(cgroups.ok && cgroups.pidsParent === null)(
    "gives two servers lending the same uid separate process budgets: one's 60 processes do not fail the other",
    async () => {
      const first = instance('first', 'auto');
      const second = instance('second', 'auto');
      const held = fs.mkdtempSync(path.join(tmp, 'ws-'));
      // The first server's run holds 61 processes under uid 100002 (bash, 59 sleeps, its poll) until told to stop.
      const holding = run(
        first,
        'for i in $(seq 59); do sleep 30 & done; touch held; while [ ! -e release ]; do sleep 0.1; done; kill $(jobs -p)',
        {},
        held,
      );
      await waitFor(() => fs.existsSync(path.join(held, 'held')));
      const result = await run(second, 'for i in $(seq 10); do sleep 0.2 & done; wait; echo forked');
      // The run's own limit still holds.
      const over = await run(second, 'for i in $(seq 70); do sleep 2 & done; wait');
      fs.writeFileSync(path.join(held, 'release'), '');
      expect((await holding).stop).toBeNull();
      expect(result.stop).toBeNull();
      expect(result.stdout).toBe('forked\n');
      expect(over.stop).toBe('processes');
    },
    40_000,
  );
});

async function waitFor(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!ok()) throw new Error('timed out');
}

describe.skipIf(skip !== null)(`without a cgroup (the fallback)${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('refuses memfd_create and SysV shared memory, and caps /dev/shm', async () => {
    const backend = instance('fallback', 'off');
    const memfd = await run(backend, `python3 -c "${MEMFD_BOMB}"`, { memoryMb: 256 });
    expect(memfd.exitCode).not.toBe(0);
    expect(memfd.stderr).toMatch(/PermissionError: \[Errno 1\] Operation not permitted/);
    const shm = await run(
      backend,
      `python3 -c "import ctypes; libc = ctypes.CDLL(None, use_errno=True); print(libc.shmget(0, 1 << 20, 0o1600), ctypes.get_errno())"`,
    );
    expect(shm.stdout).toBe('-1 1\n');
    const devShm = await run(backend, 'head -c 100M /dev/zero > /dev/shm/x; echo "exit $?"; du -m /dev/shm/x', {
      tmpMb: 32,
      memoryMb: 256,
    });
    expect(devShm.stderr).toMatch(/No space left on device/);
    expect(devShm.stdout).toMatch(/^exit 1\n3[23]\t/);
  });

  it('says on the probe which limits hold how', async () => {
    const probe = await instance('fallback', 'off').probe();
    expect(probe.ok && probe.enforcement?.memory).toMatch(/memfd_create and SysV shared memory are denied/);
    expect(probe.ok && probe.enforcement?.processes).toMatch(/RLIMIT_NPROC, counted per uid/);
    if (!cgroups.ok) return;
    const withCgroups = await instance('a', 'auto').probe();
    expect(withCgroups.ok && withCgroups.enforcement?.memory).toMatch(/a memory cgroup per run/);
  });
});
