/**
 * A cgroup per run, so that what the kernel counts is what a run may use. RLIMIT_AS does not count memfd and shared
 * memory pages (sixteen memfds of 192 MB held 3 GB in a run limited to 2 GB), and RLIMIT_NPROC counts a uid's
 * processes host-wide (a second server on the host lent the same uid shares its budget). A run's memory cgroup
 * counts every page its processes fault in, memfd, /dev/shm and its /tmp tmpfs included, with swap off, and its pids
 * cgroup counts its own processes and threads, whatever their uid.
 *
 * cgroup v1 (a `memory` and a `pids` hierarchy) or v2 (one hierarchy with both controllers), whichever the machine
 * mounts; each run's cgroup is made under the server's own cgroup (or `sandbox.cgroup`'s path), bwrap's process in
 * the new namespaces is moved in while it waits at `--block-fd`, before it starts the run's command (bwrap.ts), so
 * nothing of the run ever runs outside it, and the cgroup is removed after the run (made ahead: `takeRunCgroup`).
 *
 * Where none is writable (an unprivileged server, a container without a delegated cgroup, v2 where the server's
 * cgroup holds processes) the backend falls back (bwrap.ts): memfd_create and SysV shared memory are denied by the
 * seccomp filter and /dev/shm is a capped tmpfs, and RLIMIT_NPROC counts per uid.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** `auto`: the server's own cgroup; `off`: never (the fallback); a path such as `/skillchat`: that cgroup. */
export type CgroupSetting = 'auto' | 'off' | string;

export type RunCgroupSupport =
  | {
      ok: true;
      version: 'v1' | 'v2';
      /** Folders runs' cgroups are made in: v1's memory and pids parents, or v2's one parent. */
      memoryParent: string;
      /** v1: the pids hierarchy's parent, or null when no pids hierarchy is writable; v2: the same as memory. */
      pidsParent: string | null;
      /** Fresh cgroups made ahead of the runs that will take them, by limits (`takeRunCgroup`). */
      madeAhead: Map<string, RunCgroup[]>;
    }
  | { ok: false; reason: string };

export interface RunCgroup {
  /** The `cgroup.procs` files a process is moved in by (memory first). */
  procsFiles: string[];
  /** Moves a process (not yet running any of the run's code) into the run's cgroups; its children follow. */
  enter(pid: number): void;
  /** Whether this run's processes are counted by pids.max (then RLIMIT_NPROC is not set). */
  countsProcesses: boolean;
  /** Highest memory the run's cgroup held, bytes, when the kernel says (v1 max_usage, v2 memory.peak). */
  peakBytes(): Promise<number | null>;
  /** Whether the kernel killed a process of the run for passing the memory limit. */
  oomKilled(): Promise<boolean>;
  /** Kills whatever is left in it and removes it (waiting up to 2 s for its processes to be gone); never throws. */
  remove(): Promise<void>;
}

const MOUNTS = '/proc/self/mountinfo';
const OWN = '/proc/self/cgroup';

interface Mount {
  dir: string;
  root: string;
}

async function readText(file: string): Promise<string | null> {
  return fs.promises.readFile(/*turbopackIgnore: true*/ file, 'utf8').catch(() => null);
}

/** cgroup mounts by controller (`memory`, `pids`) and `unified` for cgroup2. */
function cgroupMounts(mountinfo: string): Map<string, Mount> {
  const mounts = new Map<string, Mount>();
  for (const line of mountinfo.split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const fields = before.split(' ');
    const [fstype, , superOptions = ''] = after.split(' ');
    const mount = { root: fields[3] ?? '/', dir: fields[4] ?? '' };
    if (fstype === 'cgroup2' && !mounts.has('unified')) mounts.set('unified', mount);
    if (fstype !== 'cgroup') continue;
    for (const option of superOptions.split(',')) {
      if ((option === 'memory' || option === 'pids') && !mounts.has(option)) mounts.set(option, mount);
    }
  }
  return mounts;
}

/** This process's cgroup path per hierarchy: `memory`, `pids`, and `unified` (the `0::` line). */
function ownCgroups(text: string): Map<string, string> {
  const own = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    const [, controllers = '', where = '/'] = match;
    if (controllers === '') own.set('unified', where);
    for (const c of controllers.split(',')) own.set(c, where);
  }
  return own;
}

function under(mount: Mount, cgroupPath: string): string {
  // A mount of a sub-tree (a container's) shows its root; /proc/self/cgroup's path may still start with it.
  const relative =
    mount.root !== '/' && cgroupPath.startsWith(mount.root) ? cgroupPath.slice(mount.root.length) : cgroupPath;
  return path.join(/*turbopackIgnore: true*/ mount.dir, relative);
}

async function write(file: string, value: string): Promise<void> {
  await fs.promises.writeFile(/*turbopackIgnore: true*/ file, value);
}

const RUN_PREFIX = 'skillchat-run-';

/** Removes the run cgroups of servers that are gone (a crash, a kill -9); a live server's are left alone. */
async function sweep(parent: string): Promise<void> {
  const entries = await fs.promises.readdir(/*turbopackIgnore: true*/ parent).catch(() => [] as string[]);
  for (const entry of entries) {
    const pid = Number(/^skillchat-run-(\d+)-/.exec(entry)?.[1] ?? 0);
    if (!pid || pid === process.pid || alive(pid)) continue;
    await removeCgroup(path.join(/*turbopackIgnore: true*/ parent, entry));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Makes and removes one cgroup with a limit, which is what every run will do. */
async function tryParent(parent: string, files: string[]): Promise<string | null> {
  const probe = path.join(/*turbopackIgnore: true*/ parent, `skillchat-probe-${process.pid}`);
  try {
    await fs.promises.mkdir(/*turbopackIgnore: true*/ probe);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') return `cannot make a cgroup in ${parent} (${code})`;
  }
  try {
    for (const [file, value] of files.map((f) => f.split('=') as [string, string])) {
      await write(path.join(/*turbopackIgnore: true*/ probe, file), value);
    }
    return null;
  } catch (error) {
    return `cannot set a limit in ${parent} (${(error as NodeJS.ErrnoException).code})`;
  } finally {
    await fs.promises.rmdir(/*turbopackIgnore: true*/ probe).catch(() => {});
  }
}

/** Which cgroups runs get here, tried for real (one made and removed); called once per backend. */
export async function findRunCgroups(
  setting: CgroupSetting,
  sources: { mountinfo?: string; cgroup?: string } = {},
): Promise<RunCgroupSupport> {
  if (setting === 'off') return { ok: false, reason: 'sandbox.cgroup is off' };
  if (process.platform !== 'linux') return { ok: false, reason: 'cgroups need Linux' };
  const mounts = cgroupMounts(sources.mountinfo ?? (await readText(MOUNTS)) ?? '');
  const own = ownCgroups(sources.cgroup ?? (await readText(OWN)) ?? '');
  const at = (hierarchy: string) => (setting === 'auto' ? (own.get(hierarchy) ?? '/') : setting);
  const memory = mounts.get('memory');
  if (memory) {
    const memoryParent = under(memory, at('memory'));
    const failed = await tryParent(memoryParent, ['memory.limit_in_bytes=67108864']);
    if (failed) return { ok: false, reason: `cgroup v1: ${failed}` };
    const pids = mounts.get('pids');
    const pidsParent = pids ? under(pids, at('pids')) : null;
    const pidsFailed = pidsParent ? await tryParent(pidsParent, ['pids.max=64']) : 'no pids hierarchy';
    await sweep(memoryParent);
    if (pidsParent && !pidsFailed) await sweep(pidsParent);
    return { ok: true, version: 'v1', memoryParent, pidsParent: pidsFailed ? null : pidsParent, madeAhead: new Map() };
  }
  const unified = mounts.get('unified');
  if (!unified) return { ok: false, reason: 'no cgroup hierarchy with the memory controller is mounted' };
  const parent = under(unified, at('unified'));
  const controllers = (await readText(path.join(/*turbopackIgnore: true*/ parent, 'cgroup.controllers'))) ?? '';
  if (!/\bmemory\b/.test(controllers)) {
    return { ok: false, reason: `cgroup v2: the memory controller is not available in ${parent}` };
  }
  const withPids = /\bpids\b/.test(controllers);
  try {
    await write(
      path.join(/*turbopackIgnore: true*/ parent, 'cgroup.subtree_control'),
      withPids ? '+memory +pids' : '+memory',
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'EBUSY'
        ? 'it holds processes, so its children cannot have controllers (set sandbox.cgroup to a delegated, empty cgroup)'
        : code;
    return { ok: false, reason: `cgroup v2: cannot enable the memory controller below ${parent}: ${why}` };
  }
  const failed = await tryParent(parent, ['memory.max=67108864', 'memory.swap.max=0']);
  if (failed) return { ok: false, reason: `cgroup v2: ${failed}` };
  await sweep(parent);
  return { ok: true, version: 'v2', memoryParent: parent, pidsParent: withPids ? parent : null, madeAhead: new Map() };
}

/** How /admin and the probe say which is in force. */
export function describeCgroups(support: RunCgroupSupport): { memory: string; processes: string } {
  if (!support.ok) {
    return {
      memory: `RLIMIT_AS per process; memfd_create and SysV shared memory are denied and /dev/shm is a capped tmpfs, because no memory cgroup can be made here (${support.reason})`,
      processes: 'RLIMIT_NPROC, counted per uid: each run is lent its own uid (server as root)',
    };
  }
  return {
    memory: `a memory cgroup per run (${support.version}): every page its processes use, memfd, /dev/shm and /tmp included, no swap`,
    processes: support.pidsParent
      ? `a pids cgroup per run (${support.version}): the run's own processes and threads, whatever their uid`
      : 'RLIMIT_NPROC, counted per uid (no pids cgroup can be made here): each run is lent its own uid (server as root)',
  };
}

/**
 * A fresh cgroup for one run: memory limit `memoryMb` with no swap, and (when there is a pids parent) at most
 * `maxProcesses` of the run's own processes plus bwrap's two.
 */
export async function createRunCgroup(
  support: Extract<RunCgroupSupport, { ok: true }>,
  limits: { memoryMb: number; maxProcesses: number },
): Promise<RunCgroup> {
  // The server's pid in the name: a later start removes what a crashed server left (`sweep`).
  const name = `${RUN_PREFIX}${process.pid}-${randomUUID().slice(0, 8)}`;
  const bytes = String(limits.memoryMb * 1024 * 1024);
  // bwrap's PID 1 inside is moved in too (bwrap.ts), a process RLIMIT_NPROC never counted.
  const pidsMax = String(limits.maxProcesses + 1);
  const dirs: string[] = [];
  // Synchronous on purpose: cgroupfs files live in kernel memory and never wait on a disk, and each trip through the
  // thread pool cost a few ms on a loaded machine (the per-run figure in bench/sandbox.ts).
  const make = (parent: string, settings: Array<[string, string]>) => {
    const dir = path.join(/*turbopackIgnore: true*/ parent, name);
    fs.mkdirSync(/*turbopackIgnore: true*/ dir);
    dirs.push(dir);
    for (const [file, value] of settings) {
      try {
        fs.writeFileSync(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ dir, file), value);
      } catch (error) {
        // v1 without swap accounting has no memsw files: nothing to limit there, the limit above holds.
        if (!((error as NodeJS.ErrnoException).code === 'ENOENT' && file.startsWith('memory.memsw'))) throw error;
      }
    }
    return dir;
  };
  const enter = (pid: number) => {
    for (const dir of dirs) {
      fs.writeFileSync(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ dir, 'cgroup.procs'), String(pid));
    }
  };
  const remove = async () => {
    for (const dir of dirs.reverse()) await removeCgroup(dir);
  };
  try {
    if (support.version === 'v1') {
      const memory = make(support.memoryParent, [
        ['memory.limit_in_bytes', bytes],
        ['memory.memsw.limit_in_bytes', bytes],
        ['memory.swappiness', '0'],
      ]);
      const pids = support.pidsParent ? make(support.pidsParent, [['pids.max', pidsMax]]) : null;
      return {
        procsFiles: [memory, ...(pids ? [pids] : [])].map((d) =>
          path.join(/*turbopackIgnore: true*/ d, 'cgroup.procs'),
        ),
        enter,
        countsProcesses: pids !== null,
        peakBytes: () => numberIn(path.join(/*turbopackIgnore: true*/ memory, 'memory.max_usage_in_bytes')),
        oomKilled: () => oomKills(path.join(/*turbopackIgnore: true*/ memory, 'memory.oom_control')),
        remove,
      };
    }
    const dir = make(support.memoryParent, [
      ['memory.max', bytes],
      ['memory.swap.max', '0'],
      ...(support.pidsParent ? ([['pids.max', pidsMax]] as Array<[string, string]>) : []),
    ]);
    return {
      procsFiles: [path.join(/*turbopackIgnore: true*/ dir, 'cgroup.procs')],
      enter,
      countsProcesses: support.pidsParent !== null,
      peakBytes: () => numberIn(path.join(/*turbopackIgnore: true*/ dir, 'memory.peak')),
      oomKilled: () => oomKills(path.join(/*turbopackIgnore: true*/ dir, 'memory.events')),
      remove,
    };
  } catch (error) {
    await remove();
    throw error;
  }
}

/**
 * A fresh cgroup for one run, made ahead when runs with these limits came before: making one waits on the lock of
 * the whole hierarchy, which the removal of the last run's cgroup may hold. Each is used by one run only and removed
 * after it. The first run with given limits makes its own (a server that runs once leaves none behind); from the
 * second on, the next one is made after a run's cgroup is removed. Those made ahead and never taken are removed
 * by the next start (`sweep`), like a crashed server's.
 */
export async function takeRunCgroup(
  support: Extract<RunCgroupSupport, { ok: true }>,
  limits: { memoryMb: number; maxProcesses: number },
): Promise<{ cgroup: RunCgroup; makeNext: () => void }> {
  const key = `${limits.memoryMb}:${limits.maxProcesses}`;
  const ahead = support.madeAhead.get(key);
  const cgroup = ahead?.pop() ?? (await createRunCgroup(support, limits));
  if (!ahead) {
    support.madeAhead.set(key, []);
    return { cgroup, makeNext: () => {} };
  }
  const makeNext = () => {
    if (ahead.length > 0) return;
    createRunCgroup(support, limits).then(
      (next) => ahead.push(next),
      () => {},
    );
  };
  return { cgroup, makeNext };
}

/** A cgroup file's text, or null; synchronous like `make`. */
function readCgroupFile(file: string): string | null {
  try {
    return fs.readFileSync(/*turbopackIgnore: true*/ file, 'utf8');
  } catch {
    return null;
  }
}

/** The number a cgroup file holds, or null (an older kernel without memory.peak). */
async function numberIn(file: string): Promise<number | null> {
  const n = Number.parseInt(readCgroupFile(file) ?? '', 10);
  return Number.isFinite(n) ? n : null;
}

/** Whether v1's memory.oom_control or v2's memory.events counts a kill by the OOM killer. */
async function oomKills(file: string): Promise<boolean> {
  const kills = /^oom_kill (\d+)$/m.exec(readCgroupFile(file) ?? '')?.[1];
  return Number(kills ?? 0) > 0;
}

/** Empties a run's cgroup (its PID namespace is normally gone already) and removes it. */
async function removeCgroup(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt++) {
    const procs = (await readText(path.join(/*turbopackIgnore: true*/ dir, 'cgroup.procs'))) ?? '';
    for (const pid of procs.split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Gone between the read and the kill.
      }
    }
    try {
      await fs.promises.rmdir(/*turbopackIgnore: true*/ dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      if (code !== 'EBUSY') break;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  console.error(`[skillchat] sandbox: could not remove the run's cgroup ${path.basename(dir)}`);
}
