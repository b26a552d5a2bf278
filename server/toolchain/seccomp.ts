/**
 * The sandbox's seccomp filter: a BPF program bwrap loads with `--seccomp FD` before it starts the script. Built by
 * seccomp-filter.py (libseccomp's Python bindings, Debian `python3-seccomp`) into `<runtime>/seccomp.bpf` on the
 * machine that runs it, and rebuilt when that script changes: the hash of the script (and the architecture) sits
 * beside the program in `seccomp.bpf.sha256`.
 *
 * Everything is allowed except SECCOMP_DENIED, which fails with EPERM (clone3 with ENOSYS, so libc falls back to
 * clone, whose flags a filter can read). Why each is denied is in the generator.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** What the filter refuses; the conditional ones are the last four. Kept equal to `seccomp-filter.py --list`. */
export const SECCOMP_DENIED: readonly string[] = [
  'setns',
  'mount',
  'umount',
  'umount2',
  'pivot_root',
  'move_mount',
  'open_tree',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'keyctl',
  'add_key',
  'request_key',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'syslog',
  'lookup_dcookie',
  'reboot',
  'swapon',
  'swapoff',
  'acct',
  'quotactl',
  'quotactl_fd',
  'iopl',
  'ioperm',
  'settimeofday',
  'clock_settime',
  'adjtimex',
  'clock_adjtime',
  'name_to_handle_at',
  'open_by_handle_at',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'unshare',
  'clone',
  'clone3',
  'personality',
];

/**
 * Denied too by the `no-shared-memory` variant, which runs get where no memory cgroup counts their pages
 * (sandbox/run-cgroup.ts). Kept equal to `seccomp-filter.py --no-shared-memory --list`, after SECCOMP_DENIED's.
 */
export const SECCOMP_SHARED_MEMORY: readonly string[] = ['memfd_create', 'shmget'];

/** `standard`: SECCOMP_DENIED; `no-shared-memory`: and SECCOMP_SHARED_MEMORY. */
export type SeccompVariant = 'standard' | 'no-shared-memory';

/** How the conditional entries of SECCOMP_DENIED are denied, for /admin and the README. */
export const SECCOMP_CONDITIONS: Readonly<Record<string, string>> = {
  unshare: 'with any namespace flag',
  clone: 'with a namespace flag (CLONE_NEWUSER first)',
  clone3: 'always, with ENOSYS, so libc falls back to clone',
  personality: 'other than the default personas',
};

/** Debian's interpreter: python3-seccomp is installed for it, not for a venv or a pyenv. */
const PYTHON = '/usr/bin/python3';

export type SeccompFilter = { path: string } | { path: null; reason: string };

export function seccompGenerator(appDir: string = process.env.SKILLCHAT_APP_DIR ?? process.cwd()): string {
  return path.join(/*turbopackIgnore: true*/ appDir, 'server', 'toolchain', 'seccomp-filter.py');
}

function filterFiles(runtimeDir: string, variant: SeccompVariant): { bpf: string; hash: string } {
  const name = variant === 'standard' ? 'seccomp.bpf' : 'seccomp-noshm.bpf';
  const bpf = path.join(/*turbopackIgnore: true*/ runtimeDir, name);
  return { bpf, hash: `${bpf}.sha256` };
}

async function generatorHash(generator: string): Promise<string> {
  const source = await fs.promises.readFile(/*turbopackIgnore: true*/ generator);
  return createHash('sha256').update(source).update(`\0${process.arch}`).digest('hex');
}

/** The built filter if it is current; never writes (for /admin). */
export async function checkSeccompFilter(
  runtimeDir: string,
  generator: string = seccompGenerator(),
  variant: SeccompVariant = 'standard',
): Promise<SeccompFilter> {
  const files = filterFiles(runtimeDir, variant);
  const want = await generatorHash(generator).catch(() => null);
  if (!want) return { path: null, reason: `the generator ${path.basename(generator)} is missing` };
  const [have, size] = await Promise.all([
    fs.promises.readFile(/*turbopackIgnore: true*/ files.hash, 'utf8').catch(() => null),
    fs.promises
      .stat(/*turbopackIgnore: true*/ files.bpf)
      .then((s) => s.size)
      .catch(() => 0),
  ]);
  if (size === 0 || have === null) return { path: null, reason: 'not built: run `bin/skills runtime install`' };
  if (have.trim() !== want) {
    return { path: null, reason: 'out of date (its generator changed): run `bin/skills runtime install`' };
  }
  return { path: files.bpf };
}

/**
 * `<runtimeDir>/seccomp.bpf`, built first when missing or older than the generator. Concurrent callers each write
 * a file of their own and rename it into place, so a reader never sees half a program.
 */
export async function ensureSeccompFilter(
  runtimeDir: string,
  generator: string = seccompGenerator(),
  variant: SeccompVariant = 'standard',
): Promise<SeccompFilter> {
  const current = await checkSeccompFilter(runtimeDir, generator, variant);
  if (current.path !== null || current.reason.startsWith('the generator')) return current;
  const files = filterFiles(runtimeDir, variant);
  const hash = await generatorHash(generator);
  const tmp = `${files.bpf}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    await fs.promises.mkdir(/*turbopackIgnore: true*/ runtimeDir, { recursive: true });
    const flags = variant === 'standard' ? [] : ['--no-shared-memory'];
    await exec(PYTHON, [generator, ...flags, tmp], { timeout: 60_000 });
    await fs.promises.chmod(/*turbopackIgnore: true*/ tmp, 0o644);
    await fs.promises.rename(/*turbopackIgnore: true*/ tmp, files.bpf);
    await fs.promises.writeFile(/*turbopackIgnore: true*/ `${tmp}.sha256`, `${hash}\n`, { mode: 0o644 });
    await fs.promises.rename(/*turbopackIgnore: true*/ `${tmp}.sha256`, files.hash);
    return { path: files.bpf };
  } catch (error) {
    await Promise.all([tmp, `${tmp}.sha256`].map((f) => fs.promises.rm(/*turbopackIgnore: true*/ f, { force: true })));
    return { path: null, reason: buildFailure(error) };
  }
}

function buildFailure(error: unknown): string {
  const e = error as NodeJS.ErrnoException & { stderr?: string };
  if (e.code === 'ENOENT' && e.path === PYTHON) return `${PYTHON} is missing`;
  if (/No module named '?seccomp/.test(e.stderr ?? '')) {
    return 'python3-seccomp is not installed (`apt-get install python3-seccomp`, or `bin/skills runtime install` as root)';
  }
  if (e.code === 'EACCES' || e.code === 'EROFS') return `cannot write the filter into the runtime folder (${e.code})`;
  const last = `${e.stderr ?? ''}`.trim().split('\n').pop() || e.message;
  return `building the filter failed: ${last.slice(0, 300)}`;
}
