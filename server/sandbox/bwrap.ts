/**
 * The bubblewrap backend: the real `python3`, `node`, `bash`, `soffice` in fresh Linux namespaces (no network, own
 * PID and IPC namespaces), with nothing of the host but read-only system folders. Layout inside:
 *
 *   /usr (ro), /lib /lib64 /bin /sbin -> usr/...   the interpreters, tools and their libraries
 *   /etc/{ld.so.cache,alternatives,fonts,libreoffice}, /var/cache/fontconfig (ro)   what the loader, fonts and
 *   LibreOffice need
 *   /etc/passwd, /etc/group (ro)   one synthetic line each for the run's uid (LibreOffice aborts without one)
 *   /skill (ro)  the skill whose script runs      /skills/<name> (ro)  every skill the chat activated
 *   /workspace (rw)  the chat workspace, working directory      /tmp  a tmpfs, also HOME     /dev/shm  a tmpfs
 *   /opt/skillchat-runtime (ro)  venv + node_modules, first on PATH, NODE_PATH; its node_modules also at
 *   /node_modules (ro), where ES modules' `import` finds them
 *   /opt/skillchat-office (ro)  LibreOffice's prepared profile and the `soffice` wrappers that copy it into /tmp,
 *   first on PATH (office-profile.ts)
 *   /run/skillchat/office.sock  a run of a chat: the socket its `soffice --convert-to` asks the chat's kept
 *   LibreOffice through (office-host.ts); /run/skillchat/office (rw) that LibreOffice's own sandbox: where it listens
 *
 * A run with `egress` (bwrap-egress.ts) still has no network of its own: its proxy's Unix socket is bound in at
 * /run/skillchat/egress.sock, the prologue starts a forwarder on its loopback (127.0.0.1:3128), the proxy and CA
 * variables point there, and secret variables reach bwrap through a pipe (`--args`), never its command line.
 *
 * Limits are rlimits set by a tiny bash prologue before `exec` (address space, CPU, processes, file size, no core
 * dumps), and a cgroup per run where one can be made (run-cgroup.ts): its memory limit counts memfd, /dev/shm and
 * /tmp pages too, and its pids.max counts the run's processes in place of RLIMIT_NPROC. Without one, the seccomp
 * filter's `no-shared-memory` variant denies memfd_create and SysV shared memory, and /dev/shm is a capped tmpfs. A seccomp filter (toolchain/seccomp.ts, built by `runtime install` into the runtime folder) refuses what
 * scripts never need, nested user namespaces first; as root no code runs without it.
 * RLIMIT_NPROC never applies to root, so the command must not run as root:
 * - server not root: bwrap makes an unprivileged user namespace (`--unshare-user --disable-userns`) and the limits
 *   count against the server's user (one budget for all runs: see the README).
 * - server root: bwrap (as root, so it can reach a private data folder) builds the namespaces and mounts, then
 *   `setpriv` inside drops to the run's own uid (slots.ts) with no capabilities, an empty bounding set and
 *   no_new_privs before the prologue runs. Every run shares one gid and a umask of 002, so files one run leaves in a
 *   workspace stay writable by the next run of that chat, whatever uid it was lent.
 * bwrap itself is started with an empty environment: it is PID 1 inside, and `/proc/1/environ` must show nothing.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { oncePerKey } from '../once-per-key';
import { type EgressAssets, installEgressAssets } from '../toolchain/egress-assets';
import { ensureSeccompFilter, type SeccompFilter, type SeccompVariant } from '../toolchain/seccomp';
import { missingPackageHint, runtimeInstalled, unavailablePackages } from '../toolchain/skills-runtime';
import { folderFiles } from '../workspace/run-files';
import { egressEnv, egressMounts, FORWARDER_PROLOGUE, NODE_BASE_OPTIONS, secretEnvArgs } from './bwrap-egress';
import { installMounts, npmProject, withInstalls } from './bwrap-installs';
import { runCapped } from './capped-process';
import { OFFICE_HOST_FOLDER, OFFICE_SOCKET } from './office-host';
import { OFFICE_MOUNT } from './office-profile';
import {
  type Availability,
  SANDBOX_PATHS,
  type SandboxBackend,
  type SandboxRequest,
  type SandboxResult,
  WORKSPACE_POLL_MS,
} from './port';
import { describeCgroups, findRunCgroups, type RunCgroup, type RunCgroupSupport, takeRunCgroup } from './run-cgroup';

const run = promisify(execFile);
// Next's types make NODE_ENV required; the sandbox's tools get no environment at all.
const EMPTY_ENV = {} as NodeJS.ProcessEnv;

export interface BwrapOptions {
  bwrapPath?: string;
  /** The gid every run shares (server as root). */
  sandboxGid?: number;
  /**
   * The skills runtime (venv + node_modules, toolchain/skills-runtime.ts), mounted read-only when installed; its
   * folder also holds the seccomp filter. Null: neither (the probe).
   */
  runtimeDir?: string | null;
  /**
   * Which cgroups runs get (run-cgroup.ts), found once by the caller (select.ts keeps it per process); absent: found
   * once per backend under the server's own cgroup.
   */
  cgroups?: () => Promise<RunCgroupSupport>;
}

/** What one run mounts and loads beside the request: decided by the backend, per run. */
interface RunSetup {
  /** The installed runtime's host folder, or null. */
  runtimeDir: string | null;
  /** Host file of the compiled seccomp filter, or null. */
  seccompFile: string | null;
  /** With `request.egress`: the runtime folder whose `egress/` holds the forwarder (bwrap-egress.ts). */
  egressRuntimeDir?: string;
  /** The run's own cgroup, or null: the fallback (no memfd, no SysV shm, RLIMIT_NPROC per uid). */
  cgroup?: RunCgroup | null;
}

// The system's font cache too: without it every run that draws text (LibreOffice, pdftoppm, matplotlib) first builds
// its own in HOME, a third of a second of reading every font file.
const SYSTEM_RO = ['/etc/ld.so.cache', '/etc/alternatives', '/etc/fonts', '/etc/libreoffice', '/var/cache/fontconfig'];

export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

// `ulimit` with neither -S nor -H sets both, so the script cannot raise them again.
const PROLOGUE = [
  'ulimit -c 0',
  'ulimit -v "$SKILLCHAT_AS_KB"',
  // Soft below hard: the soft limit sends SIGXCPU (told apart from a kill), the hard one SIGKILL a second later.
  'ulimit -S -t "$SKILLCHAT_CPU_S"',
  'ulimit -H -t "$((SKILLCHAT_CPU_S + 1))"',
  'if [ -n "$SKILLCHAT_NPROC" ]; then ulimit -u "$SKILLCHAT_NPROC"; fi',
  'ulimit -f "$SKILLCHAT_FSIZE_KB"',
  'umask 002',
  'unset SKILLCHAT_AS_KB SKILLCHAT_CPU_S SKILLCHAT_NPROC SKILLCHAT_FSIZE_KB',
  ...FORWARDER_PROLOGUE,
  'exec "$@"',
].join('\n');

/** The sandbox's environment, built from nothing. */
export function sandboxEnv(runtime: boolean): Record<string, string> {
  const rt = SANDBOX_PATHS.runtime;
  const env: Record<string, string> = {
    PATH: `${runtime ? `${rt}/python/bin:${rt}/node/node_modules/.bin:` : ''}/usr/local/bin:/usr/bin:/bin`,
    HOME: '/tmp',
    TMPDIR: '/tmp',
    LANG: 'C.UTF-8',
    WORKSPACE: SANDBOX_PATHS.workspace,
    NODE_OPTIONS: NODE_BASE_OPTIONS,
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONUNBUFFERED: '1',
    // No network in here: installers fail at once with a message the hint recognises, not after a minute of retries.
    npm_config_offline: 'true',
    PIP_NO_INDEX: '1',
  };
  if (runtime) {
    env.VIRTUAL_ENV = `${rt}/python`;
    env.NODE_PATH = `${rt}/node/node_modules`;
  }
  return env;
}

/** LibreOffice's wrappers first on PATH, and where office.py finds the profile to seed its own from. */
function officeEnv(runtime: boolean): Record<string, string> {
  return {
    PATH: `${OFFICE_MOUNT}/bin:${sandboxEnv(runtime).PATH}`,
    SKILLCHAT_OFFICE_PROFILE: `${OFFICE_MOUNT}/profile`,
  };
}

const identities = new Map<string, { passwd: string; group: string }>();

/** One passwd and group line for the run's uid, written once per uid and process. */
function identityFiles(uid: number, gid: number): { passwd: string; group: string } {
  const key = `${uid}:${gid}`;
  const known = identities.get(key);
  if (known) return known;
  const dir = fs.mkdtempSync(
    /*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ os.tmpdir(), 'skillchat-id-'),
  );
  fs.chmodSync(/*turbopackIgnore: true*/ dir, 0o755);
  const files = {
    passwd: path.join(/*turbopackIgnore: true*/ dir, 'passwd'),
    group: path.join(/*turbopackIgnore: true*/ dir, 'group'),
  };
  fs.writeFileSync(/*turbopackIgnore: true*/ files.passwd, `sandbox:x:${uid}:${gid}::/tmp:/bin/sh\n`, { mode: 0o644 });
  fs.writeFileSync(/*turbopackIgnore: true*/ files.group, `sandbox:x:${gid}:\n`, { mode: 0o644 });
  identities.set(key, files);
  return files;
}

export function bwrapArgs(
  request: SandboxRequest,
  options: BwrapOptions = {},
  setup: RunSetup = { runtimeDir: null, seccompFile: null },
): { command: string; args: string[]; seccompFd: boolean; secretArgs: Buffer | null } {
  const { limits } = request;
  const bwrap = options.bwrapPath ?? '/usr/bin/bwrap';
  const root = isRoot();
  const gid = options.sandboxGid ?? request.uid;
  const args: string[] = [
    ...(root
      ? ['--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try']
      : ['--unshare-all', '--unshare-user', '--disable-userns']),
    '--die-with-parent',
    '--new-session',
    '--clearenv',
    // bwrap running as root creates missing folders 0700; the sandbox uid must be able to walk them.
    ...['/etc', '/opt', '/var', '/var/cache', SANDBOX_PATHS.skills].flatMap((d) => ['--perms', '0755', '--dir', d]),
    '--ro-bind',
    '/usr',
    '/usr',
    ...['lib', 'lib64', 'bin', 'sbin'].flatMap((d) => ['--symlink', `usr/${d}`, `/${d}`]),
    ...SYSTEM_RO.flatMap((p) => ['--ro-bind-try', p, p]),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    // POSIX shared memory: without a cgroup nothing else counts these pages; with one it is counted and capped too.
    '--size',
    String(limits.tmpMb * 1024 * 1024),
    '--perms',
    '1777',
    '--tmpfs',
    '/dev/shm',
    '--size',
    String(limits.tmpMb * 1024 * 1024),
    '--perms',
    '1777',
    '--tmpfs',
    '/tmp',
    ...request.mounts.flatMap((m) => ['--ro-bind', m.host, m.target]),
    '--bind',
    request.workspace.dir,
    SANDBOX_PATHS.workspace,
  ];
  const ids = identityFiles(root ? request.uid : (process.getuid?.() ?? 0), root ? gid : (process.getgid?.() ?? 0));
  args.push('--ro-bind', ids.passwd, '/etc/passwd', '--ro-bind', ids.group, '/etc/group');
  if (setup.runtimeDir) {
    args.push('--ro-bind', setup.runtimeDir, SANDBOX_PATHS.runtime);
    // ES modules ignore NODE_PATH: `import pptxgen from 'pptxgenjs'` in /workspace/deck.mjs looks up the folders
    // above it, and finds the runtime's packages at /node_modules.
    args.push('--ro-bind-try', `${setup.runtimeDir}/node/node_modules`, '/node_modules');
  }
  const { egress } = request;
  if (egress && setup.egressRuntimeDir) {
    args.push(...egressMounts(egress, setup.egressRuntimeDir, setup.runtimeDir !== null));
  }
  if (request.installs) args.push(...installMounts(request.installs));
  if (request.office) args.push('--ro-bind', request.office, OFFICE_MOUNT);
  const { officeHost } = request;
  if (officeHost) args.push(...['/run', '/run/skillchat'].flatMap((d) => ['--perms', '0755', '--dir', d]));
  if (officeHost && 'socket' in officeHost) args.push('--bind', officeHost.socket, OFFICE_SOCKET);
  if (officeHost && 'folder' in officeHost) args.push('--bind', officeHost.folder, OFFICE_HOST_FOLDER);
  const seccompFd = Boolean(setup.seccompFile);
  if (seccompFd) args.push('--seccomp', '3');
  args.push('--chdir', SANDBOX_PATHS.workspace);
  // Before the other variables, so a secret cannot take the name of one of them; the fd after the filter's.
  const secretArgs = egress ? secretEnvArgs(egress.secretEnv) : null;
  if (secretArgs) args.push('--args', seccompFd ? '4' : '3');
  const base = {
    ...sandboxEnv(setup.runtimeDir !== null),
    ...(request.office ? officeEnv(setup.runtimeDir !== null) : {}),
    ...(officeHost && 'socket' in officeHost ? { SKILLCHAT_OFFICE_SOCKET: OFFICE_SOCKET } : {}),
    ...request.env,
    ...(egress && setup.egressRuntimeDir ? egressEnv(egress, setup.runtimeDir !== null) : {}),
  };
  const env = {
    ...(request.installs ? withInstalls(base, request.installs) : base),
    SKILLCHAT_AS_KB: String(limits.memoryMb * 1024),
    SKILLCHAT_CPU_S: String(limits.cpuSeconds),
    // A pids cgroup counts the run's processes; RLIMIT_NPROC would count its uid's on the whole host.
    SKILLCHAT_NPROC: setup.cgroup?.countsProcesses ? '' : String(limits.maxProcesses),
    SKILLCHAT_FSIZE_KB: String(Math.ceil(limits.maxWorkspaceBytes / 1024)),
  };
  for (const [key, value] of Object.entries(env)) args.push('--setenv', key, value);
  args.push('--');
  if (root) {
    args.push('/usr/bin/setpriv', '--reuid', String(request.uid), '--regid', String(gid), '--clear-groups');
    args.push('--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--');
  }
  args.push('/usr/bin/bash', '-c', PROLOGUE, 'skillchat-sandbox', ...request.argv);
  return { command: bwrap, args, seccompFd, secretArgs };
}

/**
 * Makes the workspace the run's (root only; otherwise the server's own user owns it). Nested files stay
 * group-writable, and so does the folder: the chat's kept LibreOffice (office-host.ts, another uid of the same gid)
 * writes the conversions the chat's runs ask for into it.
 */
async function handWorkspaceTo(dir: string, uid: number, gid: number): Promise<void> {
  if (!isRoot()) return;
  await fs.promises.lchown(/*turbopackIgnore: true*/ dir, uid, gid);
  await fs.promises.chmod(/*turbopackIgnore: true*/ dir, 0o775);
  for (const entry of await fs.promises.readdir(/*turbopackIgnore: true*/ dir)) {
    await fs.promises.lchown(/*turbopackIgnore: true*/ `${dir}/${entry}`, uid, gid).catch(() => {});
  }
}

const filters = new Map<string, Promise<SeccompFilter>>();
const egressAssets = new Map<string, Promise<EgressAssets>>();

/** The forwarder and the Node preload in `<runtimeDir>/egress/`, checked once per process (a failure again next run). */
function egressAssetsIn(runtimeDir: string): Promise<EgressAssets> {
  return oncePerKey(
    egressAssets,
    runtimeDir,
    () => installEgressAssets(runtimeDir),
    (assets) => assets.ok,
  );
}

/**
 * The seccomp filter for runs with this runtime folder, built once per process when `runtime install` has not (a
 * failed build is tried again at the next run, so installing python3-seccomp needs no restart).
 */
function seccompFilter(runtimeDir: string, variant: SeccompVariant): Promise<SeccompFilter> {
  return oncePerKey(
    filters,
    `${variant}:${runtimeDir}`,
    () => ensureSeccompFilter(runtimeDir, undefined, variant),
    (filter) => filter.path !== null,
  );
}

export function createBwrapBackend(options: BwrapOptions = {}): SandboxBackend {
  // Which cgroups runs get: tried once per backend (it does not change while the server runs).
  let found: Promise<RunCgroupSupport> | null = null;
  const runCgroups =
    options.cgroups ??
    (() => {
      found ??= findRunCgroups('auto');
      return found;
    });
  return {
    name: 'bwrap',
    label: 'bubblewrap',
    probe: async () => {
      const availability = await probeBwrap(options);
      return availability.ok ? { ...availability, enforcement: describeCgroups(await runCgroups()) } : availability;
    },
    async run(request: SandboxRequest): Promise<SandboxResult> {
      const { runtimeDir = null } = options;
      const runtime = runtimeDir && (await runtimeInstalled(runtimeDir)) ? runtimeDir : null;
      const support = await runCgroups();
      // Without a memory cgroup, memfd and SysV shared memory pages would be counted by nothing.
      const variant: SeccompVariant = support.ok ? 'standard' : 'no-shared-memory';
      const filter: SeccompFilter = runtimeDir
        ? await seccompFilter(runtimeDir, variant)
        : { path: null, reason: 'no runtime folder' };
      // As root nothing else stops a nested user namespace (an unprivileged server's bwrap has --disable-userns):
      // without the filter, no code runs.
      if (filter.path === null && isRoot()) {
        const error = `No sandbox can run code here: the seccomp filter is missing (${filter.reason})`;
        return { ...NOT_RUN, stop: 'sandbox-error', error };
      }
      const setup: RunSetup = { runtimeDir: runtime, seccompFile: filter.path };
      if (request.egress) {
        const assets = runtimeDir
          ? await egressAssetsIn(runtimeDir)
          : { ok: false as const, reason: 'no runtime folder' };
        if (!assets.ok) {
          console.error(`[skillchat] sandbox: ${assets.reason}`);
          const error =
            "the sandbox could not give this run its network access: the runtime's egress files are missing (the operator runs `bin/skills runtime install`)";
          return { ...NOT_RUN, stop: 'sandbox-error', error };
        }
        setup.egressRuntimeDir = runtimeDir as string;
      }
      let cgroup: RunCgroup | null = null;
      let makeNext = () => {};
      if (support.ok) {
        try {
          ({ cgroup, makeNext } = await takeRunCgroup(support, request.limits));
        } catch (error) {
          console.error(`[skillchat] sandbox: could not make the run's cgroup: ${(error as Error).message}`);
          const message = "the sandbox could not make this run's cgroup, which counts its memory and processes";
          return { ...NOT_RUN, stop: 'sandbox-error', error: message };
        }
      }
      setup.cgroup = cgroup;
      let result: SandboxResult;
      try {
        result = await runBwrap(request, options, setup);
      } finally {
        // Not awaited: the run's PID namespace may take a few ms more to go, and its result is already known. The
        // next run's cgroup is made once this one is gone, off both runs' paths.
        void cgroup?.remove().then(makeNext);
      }
      if (result.exitCode !== 0 && runtimeDir) {
        const installs = request.installs !== undefined;
        const hint = missingPackageHint(result.stderr, await unavailablePackages(runtimeDir), { installs });
        if (hint) return { ...result, hint };
      }
      return result;
    },
  };
}

const NOT_RUN: SandboxResult = {
  exitCode: 126,
  signal: null,
  stdout: '',
  stderr: '',
  truncated: false,
  stop: null,
  durationMs: 0,
};

async function runBwrap(request: SandboxRequest, options: BwrapOptions, setup: RunSetup): Promise<SandboxResult> {
  const leaveNpmProject = request.installs ? await npmProject(request.workspace.dir) : null;
  // The chat's kept LibreOffice never takes the workspace from the chat's runs (office-host.ts).
  const keptOffice = request.officeHost !== undefined && 'folder' in request.officeHost;
  if (!keptOffice) await handWorkspaceTo(request.workspace.dir, request.uid, options.sandboxGid ?? request.uid);
  if (request.installs) await handWorkspaceTo(request.installs.layer, request.uid, options.sandboxGid ?? request.uid);
  const { command, args, seccompFd, secretArgs } = bwrapArgs(request, options, setup);
  const extraFds = (seccompFd ? 1 : 0) + (secretArgs ? 1 : 0);
  const { cgroup } = setup;
  // bwrap's process in the new namespaces waits at --block-fd until it is in the run's cgroup; its children (the
  // run) are born there. The outer bwrap stays outside: it runs none of the run's code.
  if (cgroup) args.unshift('--info-fd', String(3 + extraFds), '--block-fd', String(4 + extraFds));
  let entered = true;
  const enter = (info: string) => {
    try {
      cgroup?.enter(sandboxPid(info));
    } catch (error) {
      entered = false;
      throw error;
    }
  };
  const filter =
    seccompFd && setup.seccompFile ? await fs.promises.open(/*turbopackIgnore: true*/ setup.seccompFile, 'r') : null;
  // A bind mount cannot be size-limited (a tmpfs or loop image per chat could, but the files must outlive the run
  // and be served by the server), so the workspace is measured while the run goes on.
  let over: string | null = null;
  try {
    const result = await runCapped({
      command,
      args,
      env: {},
      // The secret variables in a pipe (bwrap's --args), never on its command line.
      extraFds: [...(filter ? [filter.fd] : []), ...(secretArgs ? [secretArgs] : [])],
      ...(cgroup ? { gate: { open: async (info: string) => enter(info) } } : {}),
      timeoutMs: request.limits.timeoutMs,
      maxOutputBytes: request.limits.maxOutputBytes,
      signal: request.signal,
      onOutput: request.onOutput,
      watch: {
        everyMs: WORKSPACE_POLL_MS,
        check: async () => {
          over = await request.workspace.overCap();
          return over ? 'workspace-limit' : null;
        },
      },
    });
    if (result.stop === 'workspace-limit' && over) return { ...result, error: `${over}; the run was stopped` };
    if (!entered) {
      const error = 'the sandbox could not move this run into its cgroup, which counts its memory and processes';
      return { ...result, stop: 'sandbox-error', error };
    }
    if (!setup.cgroup) return classify(result, request.limits.maxProcesses);
    return withCgroup(classify(result, request.limits.maxProcesses), setup.cgroup, request.limits.memoryMb);
  } finally {
    await filter?.close();
    await leaveNpmProject?.();
  }
}

/** The pid of bwrap's process in the new namespaces, from what it writes to `--info-fd`. */
function sandboxPid(info: string): number {
  const pid = /"child-pid":\s*(\d+)/.exec(info)?.[1];
  if (!pid) throw new Error(`bwrap did not say its sandbox's pid (${info.slice(0, 100) || 'nothing on --info-fd'})`);
  return Number(pid);
}

/** What the run's cgroup says: its memory peak, and whether the kernel killed it for memory. */
async function withCgroup(result: SandboxResult, cgroup: RunCgroup, memoryMb: number): Promise<SandboxResult> {
  const [peak, oom] = await Promise.all([cgroup.peakBytes(), cgroup.oomKilled()]);
  const measured = peak === null ? result : { ...result, memoryPeakBytes: peak };
  if (!oom || (result.stop && result.stop !== 'memory')) return measured;
  const error = `the script used more than its ${memoryMb} MB of memory (shared memory and memfd included) and was stopped`;
  return { ...measured, stop: 'memory', error };
}

/** A fork that failed for RLIMIT_NPROC, as bash, Python, Node and libc report it. */
const FORK_REFUSED =
  /fork: (retry: )?Resource temporarily unavailable|BlockingIOError: \[Errno 11\]|spawn EAGAIN|Cannot fork|can't fork|pthread_create: Resource temporarily unavailable|Resource temporarily unavailable.*(fork|thread|spawn)/i;

/** bwrap exits 128+N when its child dies of signal N. */
function classify(result: SandboxResult, maxProcesses: number): SandboxResult {
  if (result.stop) return result;
  // bwrap's own failure, before the script: as root the sandbox uid must be able to walk to the folders it binds.
  if (result.exitCode === 1 && /^bwrap: Can't find source path/m.test(result.stderr)) {
    console.error(`[skillchat] sandbox: ${result.stderr.trim()}`);
    const error =
      'the sandbox could not mount the skill, workspace or runtime folder: the folders above them must be traversable (o+x) by the sandbox user';
    return { ...result, stderr: '', stop: 'sandbox-error', error };
  }
  if (result.exitCode === 128 + 24)
    return { ...result, stop: 'cpu', error: 'the script used more CPU time than allowed and was stopped' };
  if (result.exitCode === 128 + 25) {
    return {
      ...result,
      stop: 'sandbox-error',
      error: 'the script tried to write a file larger than the workspace limit',
    };
  }
  if (FORK_REFUSED.test(result.stderr)) {
    const error = `the run reached its limit of ${maxProcesses} processes and could not start more (sandbox.maxProcesses)`;
    return { ...result, stop: 'processes', error };
  }
  if (/\bMemoryError\b|JavaScript heap out of memory|Cannot allocate memory|std::bad_alloc/.test(result.stderr)) {
    return { ...result, stop: 'memory', error: 'the script used more memory than allowed' };
  }
  return result;
}

/** Can bwrap start a sandbox here? Tries a real (empty) one: a binary that exists may still be refused by the kernel. */
export async function probeBwrap(options: BwrapOptions = {}): Promise<Availability> {
  if (process.platform !== 'linux')
    return { ok: false, reason: `bubblewrap needs Linux (this is ${process.platform})` };
  const bwrap = options.bwrapPath ?? '/usr/bin/bwrap';
  if (!fs.existsSync(/*turbopackIgnore: true*/ bwrap))
    return {
      ok: false,
      reason: 'bubblewrap is not installed, so no code runs: as root, apt-get install -y bubblewrap',
    };
  const tmp = await fs.promises.mkdtemp(/*turbopackIgnore: true*/ '/tmp/skillchat-probe-');
  try {
    const limits = {
      timeoutMs: 10_000,
      cpuSeconds: 5,
      memoryMb: 256,
      maxProcesses: 16,
      maxOutputBytes: 4096,
      maxWorkspaceBytes: 1024,
      maxWorkspaceEntries: 16,
      tmpMb: 1,
    };
    const request: SandboxRequest = {
      argv: ['true'],
      mounts: [],
      workspace: folderFiles(tmp, { maxBytes: limits.maxWorkspaceBytes, maxEntries: limits.maxWorkspaceEntries }),
      uid: options.sandboxGid ?? 65534,
      limits,
    };
    const result = await runBwrap(request, options, { runtimeDir: null, seccompFile: null });
    if (result.exitCode !== 0 || result.stop) {
      return {
        ok: false,
        reason: `bubblewrap could not start a sandbox: ${result.stderr.trim() || result.error || `exit ${result.exitCode}`}`,
      };
    }
    const version = (await run(/*turbopackIgnore: true*/ bwrap, ['--version'], { env: EMPTY_ENV })).stdout.trim();
    const perRunUid = isRoot();
    const budget = perRunUid ? 'each run as its own uid' : "runs share the server user's process budget";
    return { ok: true, version, detail: `${version}, ${budget}`, perRunUid };
  } catch (error) {
    return { ok: false, reason: `bubblewrap could not start a sandbox: ${(error as Error).message}` };
  } finally {
    await fs.promises.rm(/*turbopackIgnore: true*/ tmp, { recursive: true, force: true });
  }
}
