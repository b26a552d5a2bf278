/**
 * The just-bash backend: the portable fallback where bubblewrap cannot run (macOS, locked-down containers). It runs
 * one script of a skill in just-bash (security.md, "Running skill scripts"):
 *
 *   skill folder --snapshotSkill--> entries (host I/O, main thread)
 *     --startSandboxProcess--> child process: /skills/<name> read-only + /tmp scratch -> bash.exec(...)
 *     --message--> ScriptRunResult (classified, truncated, main thread)
 *
 * Nothing else exists in the sandbox: no host files, no network (no `curl`/`wget`; Python's sockets report "Host
 * is unreachable"). `.sh`/`.bash` run with just-bash's bash, `.py` with its CPython-on-WASM (stdlib only). Time,
 * commands, output, scratch space and heap are capped; every failure comes back as a result, never a throw.
 */
import { displayPath, normaliseResourcePath } from '../skills/resources';
import { argsProblem } from './args';
import { type SandboxChild, startSandboxProcess } from './sandbox-process';
import { justBashUrl, type SandboxLimits, type SandboxOutput } from './sandbox-worker';
import {
  type OmittedEntry,
  type SnapshotEntry,
  type SnapshotLimits,
  scriptInterpreter,
  snapshotSkill,
} from './snapshot';

export { listSkillScripts, skillHasScripts } from './snapshot';

export type ScriptErrorCode =
  | 'invalid-path'
  | 'invalid-args'
  | 'unsupported-script'
  | 'not-found'
  | 'skill-unreadable'
  | 'timeout'
  | 'aborted'
  | 'limit-exceeded'
  | 'output-limit'
  | 'read-only'
  | 'sandbox-error';

export interface ScriptRunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Wall time of the whole call: copying the skill, building the sandbox and running. */
  durationMs: number;
  /** Output was cut at `maxOutputBytes` (per stream), or the script was stopped for writing too much. */
  truncated: boolean;
  /** Stopped by the time limit (just-bash's own deadline, or the worker killed shortly after it). */
  timedOut: boolean;
  /** Why the run failed or was stopped, for a person or a model; absent when the script simply ran. */
  error?: string;
  errorCode?: ScriptErrorCode;
  /** Where the skill folder was mounted inside the sandbox. */
  skillPath?: string;
  /** Skill files the sandbox did not get (links out, FIFOs, over the caps); absent when nothing was left out. */
  omitted?: OmittedEntry[];
}

export interface RunScriptOptions {
  /** Wall-clock limit for the run, including Python. Default 10 s. */
  timeoutMs?: number;
  /** Bytes kept of stdout and of stderr (each); more is cut with `truncated: true`. Default 64 KiB. */
  maxOutputBytes?: number;
  /** Shell commands (and loop iterations) allowed; stops `while true; do :; done`. Default 10,000. */
  maxCommands?: number;
  /** Cancels the run (e.g. the chat request went away). */
  signal?: AbortSignal;
  /**
   * Bytes a run may write in all: stdout, stderr and redirections into /tmp files together (just-bash counts them
   * as one). Past it the script is stopped (`errorCode: 'output-limit'`). Default 16 MiB.
   */
  maxWrittenBytes?: number;
  /** Bytes a script may keep in /tmp. Default 64 MiB. */
  maxScratchBytes?: number;
  /** Caps on copying the skill folder. */
  snapshot?: Partial<SnapshotLimits>;
  /** Register `python3`/`python` (so `.sh` wrappers can call Python too). Default true; `.py` needs it. */
  python?: boolean;
  /** JS heap of the sandbox's worker, in MiB (Python's WASM memory is outside it). Default 256. */
  maxHeapMb?: number;
}

export const DEFAULT_RUN_LIMITS = {
  timeoutMs: 10_000,
  maxOutputBytes: 64 * 1024,
  maxCommands: 10_000,
  maxWrittenBytes: 16 * 1024 * 1024,
  maxScratchBytes: 64 * 1024 * 1024,
  maxHeapMb: 256,
} as const;

/**
 * How long past `timeoutMs` the worker may take before it is killed. just-bash's deadline starts when `exec()`
 * does, after the worker has loaded (50-300 ms here, more under load); its stop keeps the output so far, a kill
 * does not, so the kill waits a little.
 */
const KILL_GRACE_MS = 2_000;

/**
 * The folder name the skill gets under `/skills`. Registry names are usually spec-valid already, but a lenient
 * load may keep odd ones, and a `/` or `..` would break the mount (MountableFs rejects those).
 */
export function sandboxSkillName(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[.-]+/, '')
    .slice(0, 64);
  return safe === '' ? 'skill' : safe;
}

function positiveInt(name: string, value: number): number {
  // A bad limit is a caller bug (config is validated), not an expected problem.
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}

/** Cuts `text` to at most `maxBytes` of UTF-8 without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): { text: string; truncated: boolean } {
  if (text.length <= maxBytes / 3) return { text, truncated: false }; // cannot exceed: <= 3 bytes per UTF-16 unit
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, truncated: false };
  let end = maxBytes;
  // Continuation bytes are 10xxxxxx; step back to the start of the character that straddles the cut.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString('utf8'), truncated: true };
}

function failure(
  started: number,
  exitCode: number,
  errorCode: ScriptErrorCode,
  error: string,
  extra?: Partial<ScriptRunResult>,
): ScriptRunResult {
  return {
    exitCode,
    stdout: '',
    stderr: '',
    durationMs: Math.round(performance.now() - started),
    truncated: false,
    timedOut: false,
    error,
    errorCode,
    ...extra,
  };
}

/** POSIX single quoting: everything between single quotes is literal; a quote is closed, escaped and reopened. */
export function shellQuote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

// Runs the script with `$0` set to its path and the arguments as "$1"...; they were quoted into SKILLCHAT_ARGS,
// which the expansion reads before `unset` runs. Through a function because just-bash 3.4's `source file args`
// drops arguments past the ninth and its `set -- args` prints usage when one of them is `--help`.
const BASH_RUNNER =
  '__skillchat_main() { source "$0"; }; eval "unset SKILLCHAT_ARGS; __skillchat_main $SKILLCHAT_ARGS"';

// runpy reads the file itself, so the script runs byte for byte with its own `__file__` and `__name__ ==
// "__main__"` (just-bash's `python3 file.py` pastes the file, indented, into a wrapper: `from __future__` breaks
// and triple-quoted strings gain four spaces a line). just-bash mounts its filesystem at /host inside CPython and
// redirects open()/os.* there, but the import system reads paths as given, so the script's folder goes on
// sys.path with the /host prefix for `import sibling` to work.
const PYTHON_RUNNER = [
  'import json, os, runpy, sys',
  'p = os.environ.pop("SKILLCHAT_SCRIPT")',
  'sys.argv = [p] + json.loads(os.environ.pop("SKILLCHAT_ARGV"))',
  'sys.path.insert(0, "/host" + os.path.dirname(p))',
  'runpy.run_path(p, run_name="__main__")',
].join('\n');

/**
 * How the interpreter is started. Not `bash file.sh args...` / `python3 file.py args...`: just-bash's `bash` and
 * `python3` print their own help when ANY argument is `--help`, so a script asked for its usage would never see
 * the request. The arguments travel in environment variables instead, and the interpreter's own argv holds
 * nothing from the caller. (Exec-time env does not reach nested commands, hence the constructor env.)
 */
function invocation(
  interpreter: 'bash' | 'python3',
  script: string,
  args: string[],
): { command: string; args: string[]; env: Record<string, string> } {
  if (interpreter === 'bash') {
    return {
      command: 'bash',
      args: ['-c', BASH_RUNNER, script],
      env: { SKILLCHAT_ARGS: args.map(shellQuote).join(' ') },
    };
  }
  return {
    command: 'python3',
    args: ['-c', PYTHON_RUNNER],
    env: { SKILLCHAT_SCRIPT: script, SKILLCHAT_ARGV: JSON.stringify(args) },
  };
}

/** Why a run failed or was stopped, in the result's own two fields. */
type Problem = { errorCode: ScriptErrorCode; error: string };

const TIMEOUT: Problem = { errorCode: 'timeout', error: 'the script ran past the time limit and was stopped' };

function readOnlyProblem(skillPath: string): Problem {
  return {
    errorCode: 'read-only',
    error: `the script tried to write inside the skill folder (${skillPath}), which is read-only; write to /tmp instead`,
  };
}

/**
 * just-bash reports a limit it enforced in stderr and a 124/126 exit code, not as a structured field. A script can
 * print the same words, but then it only misreports its own run.
 */
function classifyStop(exitCode: number, stderr: string, skillPath: string): Problem | null {
  // A redirect into the read-only mount is fatal to the script in just-bash (its output so far is dropped);
  // commands such as `touch` or `cp` just fail with EROFS and the script goes on.
  if (exitCode === 1 && /^(bash: )?EROFS: read-only file system/m.test(stderr)) return readOnlyProblem(skillPath);
  if (exitCode === 124 && /exceeded (its |the )?execution deadline/.test(stderr)) {
    return TIMEOUT;
  }
  if (exitCode !== 126) return null;
  if (/output size (limit )?exceeded/.test(stderr)) {
    return { errorCode: 'output-limit', error: 'the script wrote more output than allowed and was stopped' };
  }
  if (/too many commands executed|maxCommandCount/.test(stderr)) {
    return { errorCode: 'limit-exceeded', error: 'the script hit the command limit and was stopped' };
  }
  // Every other just-bash limit (loop iterations, seq/awk/sed/jq iterations, string length, recursion, ...) says
  // "limit exceeded", "too many ..." or names the setting to raise.
  const line = /^.*(limit exceeded|too many |increase executionLimits\.).*$/m.exec(stderr)?.[0];
  if (line) {
    return { errorCode: 'limit-exceeded', error: `the script hit a sandbox limit and was stopped (${line.trim()})` };
  }
  return null;
}

/**
 * Finds `rel` in the snapshot the way the sandbox will, following its (inside-only) links, so a missing script is
 * reported without starting a worker.
 */
export function findInSnapshot(entries: SnapshotEntry[], rel: string): SnapshotEntry | undefined {
  const byPath = new Map(entries.map((entry) => [entry.path, entry]));
  let pending = rel.split('/').filter(Boolean);
  let current = '';
  // Links in a snapshot only point inside it, but can still form a loop; 40 is Linux's own limit.
  for (let hops = 0; pending.length > 0; ) {
    const [segment, ...more] = pending;
    pending = more;
    if (segment === '.') continue;
    if (segment === '..') {
      current = current.slice(0, current.lastIndexOf('/'));
      continue;
    }
    const entry = byPath.get(`${current}/${segment}`);
    if (!entry) return undefined;
    if (entry.type === 'symlink') {
      if (++hops > 40) return undefined;
      pending = [...entry.target.split('/').filter(Boolean), ...pending];
      continue;
    }
    current = entry.path;
    if (pending.length > 0 && entry.type !== 'dir') return undefined;
  }
  return byPath.get(current);
}

type Settled = { kind: 'output'; output: SandboxOutput } | { kind: 'killed'; why: 'timeout' | 'aborted' };

/** Waits for the worker's one message, or kills it at the deadline or on abort. Always terminates the worker. */
async function settle(worker: SandboxChild, deadlineMs: number, signal: AbortSignal | undefined): Promise<Settled> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await new Promise<Settled>((resolve) => {
      worker.once('message', (output) => resolve({ kind: 'output', output: output as SandboxOutput }));
      worker.once('error', (error) =>
        resolve({ kind: 'output', output: { kind: 'crashed', message: errorMessage(error) } }),
      );
      worker.once('exit', (code, signal) =>
        resolve({
          kind: 'output',
          // V8 aborts the process when the heap cap (--max-old-space-size) is reached.
          output: {
            kind: 'crashed',
            message:
              signal === 'SIGABRT' || code === 134
                ? 'the script used more memory than allowed'
                : `the sandbox exited (${code ?? signal}) without a result`,
          },
        }),
      );
      timer = setTimeout(() => resolve({ kind: 'killed', why: 'timeout' }), deadlineMs);
      onAbort = () => resolve({ kind: 'killed', why: 'aborted' });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    await worker.terminate().catch(() => {});
  }
}

function errorMessage(error: unknown): string {
  if (error instanceof Error && 'code' in error && error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return 'the script used more memory than allowed';
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs `scriptPath` (relative to the skill folder, validated like a resource path) with `args` passed as argv,
 * never through a shell parse. `skill` must come from the registry. Never throws for anything a script or a
 * skill folder can do; a bad option value (a caller bug) throws `RangeError`.
 */
export async function runInJustBash(
  skill: { name: string; dir: string },
  scriptPath: string,
  args: string[],
  options: RunScriptOptions = {},
): Promise<ScriptRunResult> {
  const started = performance.now();
  const timeoutMs = positiveInt('timeoutMs', options.timeoutMs ?? DEFAULT_RUN_LIMITS.timeoutMs);
  const maxOutputBytes = positiveInt('maxOutputBytes', options.maxOutputBytes ?? DEFAULT_RUN_LIMITS.maxOutputBytes);
  const maxCommands = positiveInt('maxCommands', options.maxCommands ?? DEFAULT_RUN_LIMITS.maxCommands);
  const maxWrittenBytes = positiveInt('maxWrittenBytes', options.maxWrittenBytes ?? DEFAULT_RUN_LIMITS.maxWrittenBytes);
  const maxScratchBytes = positiveInt('maxScratchBytes', options.maxScratchBytes ?? DEFAULT_RUN_LIMITS.maxScratchBytes);
  const maxHeapMb = positiveInt('maxHeapMb', options.maxHeapMb ?? DEFAULT_RUN_LIMITS.maxHeapMb);
  const python = options.python ?? true;

  const normalised = normaliseResourcePath(scriptPath);
  if (!normalised.ok) {
    const reason = normalised.reason;
    return failure(started, 2, 'invalid-path', `Script path "${displayPath(scriptPath)}" is not allowed: ${reason}`);
  }
  const rel = normalised.path;
  const interpreter = scriptInterpreter(rel);
  if (!interpreter) {
    const message = `"${rel}" is not a script the sandbox can run (.sh, .bash or .py)`;
    return failure(started, 126, 'unsupported-script', message);
  }
  if (interpreter === 'python3' && !python) {
    return failure(started, 126, 'unsupported-script', `"${rel}" is a Python script and Python is turned off`);
  }
  const badArgs = argsProblem(args);
  if (badArgs) return failure(started, 2, 'invalid-args', badArgs);
  if (options.signal?.aborted) return failure(started, 130, 'aborted', 'the run was cancelled before it started');

  const skillPath = `/skills/${sandboxSkillName(skill.name)}`;
  let built: Awaited<ReturnType<typeof snapshotSkill>>;
  try {
    built = await snapshotSkill(skill.dir, options.snapshot);
  } catch (error) {
    if (error instanceof RangeError) throw error;
    return failure(started, 126, 'skill-unreadable', `skill "${skill.name}" could not be copied into the sandbox`);
  }
  if (!built.ok) return failure(started, 127, 'skill-unreadable', `skill "${skill.name}": ${built.error}`);
  const { snapshot } = built;
  const context = { skillPath, ...(snapshot.omitted.length > 0 ? { omitted: snapshot.omitted } : {}) };

  const left = snapshot.omitted.find((o) => o.path === rel);
  if (left || findInSnapshot(snapshot.entries, rel)?.type !== 'file') {
    const why = left ? ` (it was not copied into the sandbox: ${left.reason})` : '';
    const message = `Script "${rel}" does not exist in skill "${skill.name}"${why}`;
    return failure(started, 127, 'not-found', message, context);
  }

  const limits: SandboxLimits = {
    maxCommandCount: maxCommands,
    maxLoopIterations: maxCommands,
    maxExecutionTimeMs: timeoutMs,
    maxPythonTimeoutMs: timeoutMs,
    // Not `maxOutputBytes`: just-bash counts redirections into files here too, and drops the whole output of the
    // command that crosses the limit. A larger budget lets scripts build files in /tmp, and output past our cap
    // comes back cut at the cap instead of lost.
    maxOutputSize: maxWrittenBytes,
    maxFileSystemBytes: maxScratchBytes,
  };
  const run = invocation(interpreter, `${skillPath}/${rel}`, args);
  let worker: SandboxChild;
  try {
    worker = startSandboxProcess(
      {
        justBashUrl: justBashUrl(),
        entries: snapshot.entries,
        skillPath,
        command: run.command,
        args: run.args,
        env: { HOME: '/tmp', TMPDIR: '/tmp', SKILL_DIR: skillPath, ...run.env },
        python,
        limits,
        maxScratchBytes,
        // Room for the copy itself; the snapshot's own caps already bounded it.
        maxSkillBytes: snapshot.bytes + 1,
      },
      { maxHeapMb },
    );
  } catch (error) {
    return failure(started, 126, 'sandbox-error', `the sandbox could not start: ${errorMessage(error)}`, context);
  }
  // Nothing in the sandbox writes to the worker's own stdio on purpose; drain it so it cannot pile up in memory.
  worker.stdout?.resume();
  worker.stderr?.resume();

  const settled = await settle(worker, timeoutMs + KILL_GRACE_MS, options.signal);
  const durationMs = () => Math.round(performance.now() - started);

  if (settled.kind === 'killed') {
    return settled.why === 'timeout'
      ? { ...failure(started, 124, TIMEOUT.errorCode, TIMEOUT.error, context), timedOut: true }
      : failure(started, 130, 'aborted', 'the run was cancelled', context);
  }
  const { output } = settled;
  if (output.kind !== 'done') {
    // just-bash throws out of exec() for a redirect into a read-only mount instead of failing the command.
    const problem: Problem =
      output.kind === 'threw' && /EROFS/.test(output.message)
        ? readOnlyProblem(skillPath)
        : { errorCode: 'sandbox-error', error: `the sandbox stopped the script: ${output.message}` };
    return {
      ...failure(started, 1, problem.errorCode, problem.error, context),
      stderr: truncateUtf8(`${output.message}\n`, maxOutputBytes).text,
    };
  }

  const stdout = truncateUtf8(output.stdout, maxOutputBytes);
  const stderr = truncateUtf8(output.stderr, maxOutputBytes);
  const problem = classifyStop(output.exitCode, output.stderr, skillPath);
  return {
    exitCode: output.exitCode,
    stdout: stdout.text,
    stderr: stderr.text,
    durationMs: durationMs(),
    truncated: stdout.truncated || stderr.truncated || problem?.errorCode === 'output-limit',
    timedOut: problem?.errorCode === 'timeout',
    ...(problem ?? {}),
    ...context,
  };
}
