/**
 * The one path code runs by: a skill's bundled script (`skills_runScript`), a command line the model writes
 * (`sandbox_exec`), and the server's own helpers (PDF previews, reading an attached document). Every run
 *
 *   waits for a run slot (slots.ts: a cap per server, fair between people, a uid of its own)
 *     -> bubblewrap (bwrap.ts) with the chat's workspace at /workspace, the chat's activated skills read-only at
 *        /skills/<name>, the runtime, the seccomp filter and the limits
 *     -> output (capped, streamed to `onOutput`), which limit stopped it, the workspace files it created or changed.
 *
 * Never throws for anything a script, a command or a skill folder can do.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { displayPath, normaliseResourcePath } from '../skills/resources/resources';
import { ensureSeccompFilter, type SeccompFilter } from '../toolchain/seccomp';
import { missingPackageHint, runtimeInstalled, unavailablePackages } from '../toolchain/skills-runtime';
import { forgetUsage, recordOwner, roomFor } from '../workspace/quota';
import {
  diffWorkspace,
  ensureWorkspace,
  type FileChange,
  recordScriptFiles,
  removeCreated,
  scanWorkspace,
  topNames,
  uploadedNames,
} from '../workspace/workspace';
import { argsProblem } from './args';
import { isRoot } from './bwrap';
import { type ExecutionConfig, resolveExecutionConfig, sandboxLimits } from './config';
import { interpreterFor } from './interpreter';
import { chooseSandbox, createBwrapBackend, runSlots } from './select';
import {
  type BackendName,
  type RunErrorCode,
  type RunResult,
  SANDBOX_PATHS,
  type SandboxLimits,
  type SandboxMount,
  type SandboxResult,
} from './types';
import { measureTree, usageMessage } from './usage';

export { listSkillScripts, skillHasScripts } from './skill-scripts';

export interface CodeRunResult extends RunResult {
  /** Workspace files the run created or changed (empty without a workspace). */
  files: FileChange[];
  backend: BackendName | null;
}

export interface RunOptions {
  /** Whose fair share the run counts against (a person; a chat or `cli` where there is none). */
  owner?: string;
  /** Cancels the run (Stop, chat deleted), queued or running: the whole sandbox is killed. */
  signal?: AbortSignal;
  /** The chat whose workspace is the working directory; without one a throwaway folder is used. */
  chatId?: string;
  /** Sandbox, workspace and runtime settings; defaults when absent (tests, CLI). */
  execution?: ExecutionConfig;
  /** Skills mounted read-only at `/skills/<name>`: the chat's activated ones. */
  skills?: ReadonlyArray<{ name: string; dir: string }>;
  /** Shorter than the configured time limit (never longer). */
  timeoutMs?: number;
  /** Called once if the run has to wait for a slot, with the runs ahead of it. */
  onQueued?: (ahead: number) => void;
  /** Called when the run starts (after any wait). */
  onStarted?: () => void;
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
}

/** The longest command line the shell tool takes: room for a model-written script in a heredoc. */
export const MAX_COMMAND_CHARS = 100_000;

function fail(errorCode: RunErrorCode, error: string, exitCode = 126): CodeRunResult {
  return {
    exitCode,
    stdout: '',
    stderr: '',
    durationMs: 0,
    truncated: false,
    timedOut: false,
    error,
    errorCode,
    files: [],
    backend: null,
  };
}

function configOf(options: RunOptions): ExecutionConfig {
  if (options.execution) return options.execution;
  const appDir = /*turbopackIgnore: true*/ process.cwd();
  return resolveExecutionConfig({}, appDir, path.join(/*turbopackIgnore: true*/ appDir, 'data'));
}

const filters = new Map<string, Promise<SeccompFilter>>();

/**
 * The seccomp filter for runs with this runtime folder, built once per process when `runtime install` has not (a
 * failed build is tried again at the next run, so installing python3-seccomp needs no restart).
 */
export function seccompFilter(runtimeDir: string): Promise<SeccompFilter> {
  let pending = filters.get(runtimeDir);
  if (!pending) {
    pending = ensureSeccompFilter(runtimeDir).then((filter) => {
      if (filter.path === null) filters.delete(runtimeDir);
      return filter;
    });
    filters.set(runtimeDir, pending);
  }
  return pending;
}

/**
 * A skill name as a folder under /skills; names a lenient load kept that cannot be one are not mounted. A served
 * skill's qualified name (`team:pdf`, server/mcp/skills.ts) has one `:` after the server label.
 */
export function mountName(name: string): string | null {
  return /^(?:[a-z0-9][a-z0-9-]{0,30}:)?[\p{L}\p{N}][\p{L}\p{N}._-]{0,127}$/u.test(name) ? name : null;
}

function skillMounts(skills: RunOptions['skills']): SandboxMount[] {
  const mounts: SandboxMount[] = [];
  for (const skill of skills ?? []) {
    const name = mountName(skill.name);
    if (name) mounts.push({ host: skill.dir, target: `${SANDBOX_PATHS.skills}/${name}` });
  }
  return mounts;
}

type Resolved = { ok: true; realSkill: string; rel: string; head: string } | { ok: false; result: CodeRunResult };

/** The script as a path inside the real skill folder (links inside are fine, links out are not). */
async function resolveScript(skill: { name: string; dir: string }, scriptPath: string): Promise<Resolved> {
  const normalised = normaliseResourcePath(scriptPath);
  if (!normalised.ok) {
    const error = `Script path "${displayPath(scriptPath)}" is not allowed: ${normalised.reason}`;
    return { ok: false, result: fail('invalid-path', error, 2) };
  }
  const missing = {
    ok: false as const,
    result: fail('not-found', `Script "${normalised.path}" does not exist in skill "${skill.name}"`, 127),
  };
  let realSkill: string;
  let real: string;
  try {
    realSkill = await fs.promises.realpath(/*turbopackIgnore: true*/ skill.dir);
    real = await fs.promises.realpath(
      /*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ realSkill, normalised.path),
    );
  } catch {
    return missing;
  }
  const rel = path.relative(realSkill, real);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return missing;
  const handle = await fs.promises
    .open(/*turbopackIgnore: true*/ real, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
    .catch(() => null);
  if (!handle) return missing;
  try {
    if (!(await handle.stat()).isFile()) return missing;
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(256), 0, 256, 0);
    return {
      ok: true,
      realSkill,
      rel: rel.split(path.sep).join('/'),
      head: buffer.subarray(0, bytesRead).toString('utf8'),
    };
  } finally {
    await handle.close();
  }
}

/**
 * Runs `scriptPath` (relative to the skill folder) with `args` as argv, never through a shell parse. The skill is
 * at `/skill` (and, like every skill in `options.skills`, at `/skills/<name>`). `skill` must come from the registry.
 */
export async function runSkillScript(
  skill: { name: string; dir: string },
  scriptPath: string,
  args: string[],
  options: RunOptions = {},
): Promise<CodeRunResult> {
  const badArgs = argsProblem(args);
  if (badArgs) return fail('invalid-args', badArgs, 2);
  const resolved = await resolveScript(skill, scriptPath);
  if (!resolved.ok) return resolved.result;
  const interpreter = interpreterFor(resolved.rel, resolved.head);
  if (!interpreter) {
    const error = `"${resolved.rel}" is not a script the sandbox can run (.py, .js/.mjs/.cjs, .sh/.bash, or a #! line naming python3, node, bash or sh)`;
    return fail('unsupported-script', error);
  }
  const mounts = [{ host: resolved.realSkill, target: SANDBOX_PATHS.skill }, ...skillMounts(options.skills)];
  const argv = [interpreter, `${SANDBOX_PATHS.skill}/${resolved.rel}`, ...args];
  return runInWorkspace(argv, mounts, { SKILL_DIR: SANDBOX_PATHS.skill }, options);
}

/** Why the shell tool will not run this command line, or null. */
export function commandProblem(command: unknown): string | null {
  if (typeof command !== 'string' || command.trim() === '') return 'the command is empty';
  if (command.length > MAX_COMMAND_CHARS) return `the command is longer than ${MAX_COMMAND_CHARS} characters`;
  if (command.includes('\0')) return 'the command cannot contain NUL characters';
  return null;
}

/** Runs a command line with bash in the chat's sandbox (`sandbox_exec`), the activated skills at /skills/<name>. */
export async function runCommand(command: string, options: RunOptions = {}): Promise<CodeRunResult> {
  const problem = commandProblem(command);
  if (problem) return fail('invalid-command', problem, 2);
  return runInWorkspace(['bash', '-c', command], skillMounts(options.skills), {}, options);
}

/** Whether code can run here at all, and the reason when it cannot (for tools deciding what to offer). */
export async function sandboxReady(config: ExecutionConfig): Promise<{ ok: true } | { ok: false; reason: string }> {
  const choice = await chooseSandbox(config);
  return choice.backend ? { ok: true } : { ok: false, reason: choice.reason };
}

async function runInWorkspace(
  argv: string[],
  mounts: SandboxMount[],
  env: Record<string, string>,
  options: RunOptions,
): Promise<CodeRunResult> {
  const config = configOf(options);
  if (options.signal?.aborted) return fail('aborted', 'the run was cancelled before it started', 130);
  const choice = await chooseSandbox(config);
  if (!choice.backend) return fail('sandbox-error', `No sandbox can run code here: ${choice.reason}`);

  // Without a chat (CLI, tests) the run still gets a workspace: a throwaway one.
  const throwaway = options.chatId
    ? null
    : await fs.promises.mkdtemp(
        /*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ os.tmpdir(), 'skillchat-ws-'),
      );
  try {
    const dir = throwaway ?? (await ensureWorkspace(config.workspace.dir, options.chatId!));
    const limits = sandboxLimits(config);
    if (options.timeoutMs) limits.timeoutMs = Math.min(limits.timeoutMs, options.timeoutMs);
    // A person's and the server's caps over all chats: the run may fill only the room its chat has under them.
    let bytesLabel: string | undefined;
    if (options.chatId && options.owner) {
      await recordOwner(config.workspace.dir, options.chatId, options.owner);
      const room = await roomFor(config.workspace.dir, options.chatId, options.owner, config.workspace);
      limits.maxWorkspaceBytes = room.bytes;
      bytesLabel = room.label;
    }
    let before = await scanWorkspace(dir);
    let names = await topNames(dir);
    const sandboxed = await runSandboxed(
      { argv, mounts, env, workspaceDir: dir, limits, bytesLabel },
      {
        ...options,
        execution: config,
        // The workspace may change while a run waits (another run of the chat): compare with what it found.
        onStarted: async () => {
          before = await scanWorkspace(dir);
          names = await topNames(dir);
          options.onStarted?.();
        },
      },
    );
    if (!sandboxed.ok) return sandboxed.result;
    const overCap = await enforceWorkspaceCap(
      dir,
      names,
      limits,
      options.chatId ? config.workspace.dir : null,
      options.chatId,
      bytesLabel,
    );
    if (options.chatId) forgetUsage(config.workspace.dir);
    const files = diffWorkspace(before, await scanWorkspace(dir));
    if (options.chatId) await recordScriptFiles(config.workspace.dir, options.chatId, files);
    const result = toResult(sandboxed.output, files, sandboxed.startedAt, sandboxed.queuedMs, overCap);
    if (result.exitCode !== 0) {
      const hint = missingPackageHint(result.stderr, await unavailablePackages(config.runtime.dir));
      if (hint) result.hint = hint;
    }
    return result;
  } finally {
    if (throwaway) await fs.promises.rm(/*turbopackIgnore: true*/ throwaway, { recursive: true, force: true });
  }
}

export interface SandboxedCall {
  argv: string[];
  mounts: SandboxMount[];
  env?: Record<string, string>;
  workspaceDir: string;
  limits: SandboxLimits;
  /** Which limit `limits.maxWorkspaceBytes` is, for the message when a run crosses it. */
  bytesLabel?: string;
}

type Sandboxed =
  | { ok: true; output: SandboxResult; startedAt: number; queuedMs: number }
  | { ok: false; result: CodeRunResult };

/** A slot, then bubblewrap: the step every run shares. Helpers that need no workspace diff call this directly. */
export async function runSandboxed(
  call: SandboxedCall,
  options: Omit<RunOptions, 'onStarted'> & { onStarted?: () => void | Promise<void> },
): Promise<Sandboxed> {
  const config = configOf(options);
  const choice = await chooseSandbox(config);
  if (!choice.backend)
    return { ok: false, result: fail('sandbox-error', `No sandbox can run code here: ${choice.reason}`) };
  const queuedAt = performance.now();
  let slot: Awaited<ReturnType<ReturnType<typeof runSlots>['acquire']>>;
  try {
    slot = await runSlots(config).acquire(options.owner ?? options.chatId ?? 'server', {
      signal: options.signal,
      onQueued: options.onQueued,
    });
  } catch (error) {
    return { ok: false, result: fail('aborted', (error as Error).message, 130) };
  }
  try {
    const startedAt = performance.now();
    await options.onStarted?.();
    const runtime = (await runtimeInstalled(config.runtime.dir)) ? config.runtime.dir : null;
    const filter = await seccompFilter(config.runtime.dir);
    // As root nothing else stops a nested user namespace (an unprivileged server's bwrap has --disable-userns):
    // without the filter, no code runs.
    if (filter.path === null && isRoot()) {
      const error = `No sandbox can run code here: the seccomp filter is missing (${filter.reason})`;
      return { ok: false, result: fail('sandbox-error', error) };
    }
    const output = await createBwrapBackend({ sandboxGid: config.sandbox.uid }).run({
      ...call,
      runtimeDir: runtime,
      uid: slot.uid,
      seccompFile: filter.path,
      signal: options.signal,
      onOutput: options.onOutput,
    });
    return { ok: true, output, startedAt, queuedMs: Math.round(startedAt - queuedAt) };
  } finally {
    slot.release();
  }
}

/**
 * The workspace after the run: over a cap (the run was stopped for it, or wrote the rest between two checks),
 * everything the run added at the top is removed, uploads never. Returns the message for the result, or null.
 */
async function enforceWorkspaceCap(
  dir: string,
  before: Set<string>,
  limits: SandboxLimits,
  root: string | null,
  chatId: string | undefined,
  bytesLabel?: string,
): Promise<string | null> {
  const caps = { maxBytes: limits.maxWorkspaceBytes, maxEntries: limits.maxWorkspaceEntries, bytesLabel };
  const usage = await measureTree(dir, caps);
  if (!usage.over) return null;
  const keep = root && chatId ? await uploadedNames(root, chatId) : new Set<string>();
  const removed = await removeCreated(dir, before, keep);
  const still = (await measureTree(dir, caps)).over !== null;
  const done = removed > 0 ? '; the files this run created were removed' : '';
  return `${usageMessage(usage, caps)}${done}${still ? '; delete files before running more' : ''}`;
}

const STOP_CODES: Record<NonNullable<SandboxResult['stop']>, RunErrorCode> = {
  timeout: 'timeout',
  aborted: 'aborted',
  'output-limit': 'output-limit',
  'workspace-limit': 'limit-exceeded',
  memory: 'limit-exceeded',
  cpu: 'limit-exceeded',
  processes: 'limit-exceeded',
  'sandbox-error': 'sandbox-error',
};

function toResult(
  output: SandboxResult,
  files: FileChange[],
  started: number,
  queuedMs: number,
  overCap: string | null,
): CodeRunResult {
  const result: CodeRunResult = {
    exitCode: output.stop === 'timeout' ? 124 : output.stop === 'aborted' ? 130 : output.exitCode,
    stdout: output.stdout,
    stderr: output.stderr,
    durationMs: Math.round(performance.now() - started),
    ...(queuedMs > 50 ? { queuedMs } : {}),
    truncated: output.truncated,
    timedOut: output.stop === 'timeout',
    files,
    backend: 'bwrap',
  };
  if (output.stop === 'workspace-limit' && overCap !== null) {
    // The after-run message says what was cleaned up; the stop says the run was killed for it.
    result.limit = 'workspace-limit';
    result.errorCode = 'limit-exceeded';
    result.error = `${overCap}; the run was stopped`;
  } else if (output.stop) {
    if (output.stop !== 'aborted') result.limit = output.stop;
    result.errorCode = STOP_CODES[output.stop];
    result.error = output.error;
  } else if (overCap !== null) {
    result.limit = 'workspace-limit';
    result.errorCode = 'limit-exceeded';
    result.error = overCap;
  }
  return result;
}
