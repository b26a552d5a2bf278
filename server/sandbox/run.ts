/**
 * The one path code runs by: a skill's bundled script (`skills_runScript`), a command line the model writes
 * (`sandbox_exec`), and the server's own helpers (PDF previews, reading an attached document). Every run
 *
 *   opens its files (workspace/run-files.ts: the chat's workspace and the room it has under every cap)
 *     -> waits for a run slot (slots.ts: a cap per server, fair between people, a uid of its own)
 *     -> the process's backend (select.ts; bubblewrap, bwrap.ts) with the files at /workspace, the chat's activated
 *        skills read-only at /skills/<name>, the limits and, with runtime.installs `allow`, the chat's package layer
 *     -> output (capped, streamed to `onOutput`), which limit stopped it, the workspace files it created or changed.
 *
 * Never throws for anything a script, a command or a skill folder can do.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { EgressSummaryLine, OpenedEgress, RunEgress } from '../egress/types';
import { displayPath, normaliseResourcePath } from '../skills/resources/resources';
import { workspaceDir } from '../workspace/folders';
import { folderFiles, openRunFiles, type SandboxFiles } from '../workspace/run-files';
import type { FileChange } from '../workspace/workspace';
import { argsProblem } from './args';
import { type ExecutionConfig, resolveExecutionConfig, sandboxLimits } from './config';
import { runInstalls } from './installs';
import { interpreterFor } from './interpreter';
import { type HostStarter, officeHosts } from './office-host';
import {
  buildLimits,
  OFFICE_MOUNT,
  type OfficeBuildRunner,
  officeProfile,
  prepareOfficeProfile,
} from './office-profile';
import {
  type BackendName,
  type RunErrorCode,
  type RunResult,
  SANDBOX_PATHS,
  type SandboxInstalls,
  type SandboxLimits,
  type SandboxMount,
  type SandboxResult,
} from './port';
import { chooseSandbox, runSlots } from './select';

export { listSkillScripts, skillHasScripts } from './skill-scripts';

export interface CodeRunResult extends RunResult {
  /** Workspace files the run created or changed (empty without a workspace). */
  files: FileChange[];
  backend: BackendName | null;
  /** What the run reached or tried to reach through its egress proxy, per host (absent: it had no way out). */
  egress?: EgressSummaryLine[];
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
  /**
   * The run's way out (egress/run-egress.ts): a proxy opened for it once it has a slot. Absent: no network, as
   * every run had before grants existed (the CLI, previews, document reading).
   */
  egress?: RunEgress;
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
  const installs = await runInstalls(config, options.chatId);
  const files = await openRunFiles(config.workspace, {
    chatId: options.chatId,
    owner: options.owner,
    ...(installs ? { layer: installs.layer } : {}),
  });
  try {
    const limits = sandboxLimits(config);
    if (options.timeoutMs) limits.timeoutMs = Math.min(limits.timeoutMs, options.timeoutMs);
    limits.maxWorkspaceBytes = files.maxBytes;
    const sandboxed = await runSandboxed(
      { argv, mounts, env, workspace: files, limits, ...(installs ? { installs } : {}) },
      {
        ...options,
        execution: config,
        // The workspace may change while a run waits (another run of the chat): compare with what it found.
        onStarted: async () => {
          await files.begin();
          options.onStarted?.();
        },
      },
    );
    if (!sandboxed.ok) return sandboxed.result;
    const { changes, overCap } = await files.finish();
    // A file named after a secret the run held shows as `[secret NAME]`; it can still be listed, not downloaded.
    const { redact } = sandboxed;
    const shown = redact ? changes.map((c) => ({ ...c, name: redact(c.name) })) : changes;
    return toResult(sandboxed, shown, overCap);
  } finally {
    await files.close();
  }
}

export interface SandboxedCall {
  argv: string[];
  mounts: SandboxMount[];
  env?: Record<string, string>;
  /** The run's files (workspace/run-files.ts): a chat's workspace, or a folder a helper only reads. */
  workspace: SandboxFiles;
  limits: SandboxLimits;
  /** The chat's layer and the package indexes (runtime.installs `allow`, sandbox/installs.ts). */
  installs?: SandboxInstalls;
}

type Sandboxed =
  | {
      ok: true;
      output: SandboxResult;
      backend: BackendName;
      startedAt: number;
      queuedMs: number;
      egress?: EgressSummaryLine[];
      /** What the run's way out redacts (its secrets' values), for what is shown of it later (file names). */
      redact?: (text: string) => string;
    }
  | { ok: false; result: CodeRunResult };

/**
 * A slot, then the process's backend: the step every run shares. Helpers that need no workspace diff (a preview,
 * a document's text) call this directly.
 */
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
  let egress: OpenedEgress | null = null;
  try {
    const startedAt = performance.now();
    await options.onStarted?.();
    egress = options.egress
      ? await options.egress.open({ runId: randomUUID(), uid: slot.uid, gid: config.sandbox.uid })
      : null;
    const office = await officeProfile(config, buildOfficeProfile);
    // A run of a chat can ask the chat's kept LibreOffice for its conversions (office-host.ts).
    const officeSocket =
      office && options.chatId
        ? await officeHosts(config).socketFor(options.chatId, officeHostStarter(config, options.chatId, office))
        : null;
    const output = await choice.backend.run({
      ...call,
      ...(office ? { office } : {}),
      ...(officeSocket ? { officeHost: { socket: officeSocket } } : {}),
      uid: slot.uid,
      signal: options.signal,
      onOutput: redactedOutput(options.onOutput, egress),
      ...(egress ? { egress: egress.sandbox } : {}),
    });
    if (officeSocket && options.chatId) officeHosts(config).runEnded(options.chatId);
    const summary = egress ? await egress.close() : undefined;
    return {
      ok: true,
      output: egress ? redactResult(output, egress) : output,
      backend: choice.backend.name,
      startedAt,
      queuedMs: Math.round(startedAt - queuedAt),
      ...(summary ? { egress: summary } : {}),
      ...(egress ? { redact: egress.redact } : {}),
    };
  } catch (error) {
    await egress?.close().catch(() => {});
    throw error;
  } finally {
    slot.release();
  }
}

/** The run that prepares LibreOffice's profile (office-profile.ts): the server's own, in a folder of its own. */
const buildOfficeProfile: OfficeBuildRunner = async (argv, dir, config) => {
  const limits = buildLimits(config);
  const run = await runSandboxed(
    {
      argv,
      mounts: [],
      workspace: folderFiles(dir, { maxBytes: limits.maxWorkspaceBytes, maxEntries: limits.maxWorkspaceEntries }),
      limits,
    },
    { execution: config, owner: 'server' },
  );
  return run.ok ? { ok: true, output: run.output } : { ok: false, error: run.result.error ?? 'no sandbox' };
};

/**
 * How a chat's kept LibreOffice starts (office-host.ts): office-host.py in a sandbox of its own from the same
 * backend, with the chat's workspace, the prepared profile, the run limits for memory and processes, no slot (it
 * works only while a run of the chat, which holds one, waits for it) and CPU for its whole life.
 */
function officeHostStarter(config: ExecutionConfig, chatId: string, office: string): HostStarter {
  return async ({ folder, uid, signal, onOutput }) => {
    const choice = await chooseSandbox(config);
    if (!choice.backend) return;
    const limits = sandboxLimits(config);
    const dir = workspaceDir(config.workspace.dir, chatId);
    await choice.backend.run({
      argv: ['/usr/bin/python3', '-I', `${OFFICE_MOUNT}/bin/office-host.py`],
      mounts: [],
      // The runs that ask for conversions measure the workspace; the host only writes what they asked for.
      workspace: { dir, overCap: async () => null },
      limits: { ...limits, timeoutMs: 24 * 3600_000, cpuSeconds: limits.cpuSeconds * 5, maxOutputBytes: 16 * 1024 },
      uid,
      signal,
      office,
      officeHost: { folder },
      onOutput: (stream, text) => {
        if (stream === 'stdout') onOutput(text);
      },
    });
  };
}

/** Output as it arrives, with every secret value the run could know replaced (egress/run-egress.ts). */
function redactedOutput(onOutput: RunOptions['onOutput'], egress: OpenedEgress | null): RunOptions['onOutput'] {
  if (!onOutput || !egress) return onOutput;
  const streams = { stdout: egress.redactStream(), stderr: egress.redactStream() };
  return (stream, text) => {
    const clean = streams[stream].push(text);
    if (clean) onOutput(stream, clean);
  };
}

function redactResult(output: SandboxResult, egress: OpenedEgress): SandboxResult {
  const { stdoutBytes: _bytes, ...rest } = output;
  return {
    ...rest,
    stdout: egress.redact(output.stdout),
    stderr: egress.redact(output.stderr),
    ...(output.error ? { error: egress.redact(output.error) } : {}),
    ...(output.hint ? { hint: egress.redact(output.hint) } : {}),
  };
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
  { output, backend, startedAt, queuedMs, egress }: Extract<Sandboxed, { ok: true }>,
  files: FileChange[],
  overCap: string | null,
): CodeRunResult {
  const result: CodeRunResult = {
    exitCode: output.stop === 'timeout' ? 124 : output.stop === 'aborted' ? 130 : output.exitCode,
    stdout: output.stdout,
    stderr: output.stderr,
    durationMs: Math.round(performance.now() - startedAt),
    ...(queuedMs > 50 ? { queuedMs } : {}),
    truncated: output.truncated,
    timedOut: output.stop === 'timeout',
    files,
    backend,
    ...(output.hint ? { hint: output.hint } : {}),
    ...(egress ? { egress } : {}),
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

/**
 * Prepares LibreOffice's profile now, not at the first run that needs it (office-profile.ts): the prepared folder,
 * or null without LibreOffice or a sandbox.
 */
export function prepareOffice(config: ExecutionConfig): Promise<string | null> {
  return prepareOfficeProfile(config, buildOfficeProfile);
}
