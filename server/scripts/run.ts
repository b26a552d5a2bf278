/**
 * The one entry the `skills_runScript` tool calls. Resolves the script inside the skill folder, picks the sandbox
 * backend (server/sandbox/select.ts), runs it with the chat workspace as its working directory, and reports which
 * workspace files the run created or changed:
 *
 *   skill + path --resolve (inside the skill, regular file, interpreter by extension/shebang)--> request
 *     --bwrap backend (or just-bash fallback)--> output --scan workspace before/after--> ScriptRunResult + files
 *
 * Never throws for anything a script or a skill folder can do.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveScriptsConfig, type ScriptsConfig, sandboxLimits } from '../sandbox/config';
import { interpreterFor } from '../sandbox/interpreter';
import { runtimeInstalled } from '../sandbox/runtime';
import { chooseSandbox, createBwrapBackend } from '../sandbox/select';
import { type BackendName, SANDBOX_PATHS, type SandboxLimits, type SandboxResult } from '../sandbox/types';
import { measureTree, usageMessage } from '../sandbox/usage';
import { displayPath, normaliseResourcePath } from '../skills/resources';
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
import { runInJustBash, type ScriptErrorCode, type ScriptRunResult } from './just-bash';

export type { ScriptErrorCode } from './just-bash';
export { listSkillScripts, skillHasScripts } from './snapshot';

export interface SkillScriptResult extends ScriptRunResult {
  /** Workspace files the run created or changed (empty without a workspace). */
  files: FileChange[];
  backend: BackendName | null;
}

export interface RunSkillScriptOptions {
  /** Cancels the run (Stop, chat deleted): the whole sandbox is killed. */
  signal?: AbortSignal;
  /** The chat whose workspace is the working directory; without one a throwaway folder is used. */
  chatId?: string;
  /** Sandbox, workspace and runtime settings; defaults when absent (tests, CLI). */
  scripts?: ScriptsConfig;
}

function fail(errorCode: ScriptErrorCode, error: string, exitCode = 126): SkillScriptResult {
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

type Resolved = { ok: true; realSkill: string; rel: string; head: string } | { ok: false; result: SkillScriptResult };

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
 * Runs `scriptPath` (relative to the skill folder) with `args` as argv, never through a shell parse. `skill` must
 * come from the registry.
 */
export async function runSkillScript(
  skill: { name: string; dir: string },
  scriptPath: string,
  args: string[],
  options: RunSkillScriptOptions = {},
): Promise<SkillScriptResult> {
  const started = performance.now();
  const appDir = /*turbopackIgnore: true*/ process.cwd();
  const config =
    options.scripts ?? resolveScriptsConfig({}, appDir, path.join(/*turbopackIgnore: true*/ appDir, 'data'));
  const badArgs = argsProblem(args);
  if (badArgs) return fail('invalid-args', badArgs, 2);
  const resolved = await resolveScript(skill, scriptPath);
  if (!resolved.ok) return resolved.result;
  const interpreter = interpreterFor(resolved.rel, resolved.head);
  if (!interpreter) {
    const error = `"${resolved.rel}" is not a script the sandbox can run (.py, .js/.mjs/.cjs, .sh/.bash, or a #! line naming python3, node, bash or sh)`;
    return fail('unsupported-script', error);
  }
  if (options.signal?.aborted) return fail('aborted', 'the run was cancelled before it started', 130);

  const choice = await chooseSandbox(config.sandbox.backend, config.sandbox.uid);
  if (!choice.backend) return fail('sandbox-error', `No sandbox can run scripts here: ${choice.reason}`);
  if (choice.backend === 'just-bash') {
    const result = await runInJustBash(skill, resolved.rel, args, {
      signal: options.signal,
      timeoutMs: config.sandbox.timeoutMs,
      maxOutputBytes: config.sandbox.maxOutputBytes,
    });
    return { ...result, files: [], backend: 'just-bash' };
  }

  // Without a chat (CLI, tests) the run still gets a workspace: a throwaway one.
  const throwaway = options.chatId
    ? null
    : await fs.promises.mkdtemp(
        /*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ os.tmpdir(), 'skillchat-ws-'),
      );
  try {
    const dir = throwaway ?? (await ensureWorkspace(config.workspace.dir, options.chatId!));
    const before = await scanWorkspace(dir);
    const names = await topNames(dir);
    const limits = sandboxLimits(config);
    const runtime = (await runtimeInstalled(config.runtime.dir)) ? config.runtime.dir : null;
    const output = await createBwrapBackend({ sandboxUid: config.sandbox.uid }).run({
      interpreter: [interpreter],
      script: `${SANDBOX_PATHS.skill}/${resolved.rel}`,
      args,
      skillDir: resolved.realSkill,
      workspaceDir: dir,
      runtimeDir: runtime,
      limits,
      signal: options.signal,
    });
    const overCap = await enforceWorkspaceCap(
      dir,
      names,
      limits,
      options.chatId ? config.workspace.dir : null,
      options.chatId,
    );
    const files = diffWorkspace(before, await scanWorkspace(dir));
    if (options.chatId) await recordScriptFiles(config.workspace.dir, options.chatId, files);
    return toResult(output, files, started, overCap);
  } finally {
    if (throwaway) await fs.promises.rm(/*turbopackIgnore: true*/ throwaway, { recursive: true, force: true });
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
): Promise<string | null> {
  const caps = { maxBytes: limits.maxWorkspaceBytes, maxEntries: limits.maxWorkspaceEntries };
  const usage = await measureTree(dir, caps);
  if (!usage.over) return null;
  const keep = root && chatId ? await uploadedNames(root, chatId) : new Set<string>();
  const removed = await removeCreated(dir, before, keep);
  const still = (await measureTree(dir, caps)).over !== null;
  const done = removed > 0 ? '; the files this run created were removed' : '';
  return `${usageMessage(usage, caps)}${done}${still ? '; delete files before running more scripts' : ''}`;
}

const STOP_CODES: Record<NonNullable<SandboxResult['stop']>, ScriptErrorCode> = {
  timeout: 'timeout',
  aborted: 'aborted',
  'output-limit': 'output-limit',
  'workspace-limit': 'limit-exceeded',
  memory: 'limit-exceeded',
  cpu: 'limit-exceeded',
  'sandbox-error': 'sandbox-error',
};

function toResult(
  output: SandboxResult,
  files: FileChange[],
  started: number,
  overCap: string | null,
): SkillScriptResult {
  const result: SkillScriptResult = {
    exitCode: output.stop === 'timeout' ? 124 : output.stop === 'aborted' ? 130 : output.exitCode,
    stdout: output.stdout,
    stderr: output.stderr,
    durationMs: Math.round(performance.now() - started),
    truncated: output.truncated,
    timedOut: output.stop === 'timeout',
    skillPath: SANDBOX_PATHS.skill,
    files,
    backend: 'bwrap',
  };
  if (output.stop === 'workspace-limit' && overCap !== null) {
    // The after-run message says what was cleaned up; the stop says the script was killed for it.
    result.errorCode = 'limit-exceeded';
    result.error = `${overCap}; the script was stopped`;
  } else if (output.stop) {
    result.errorCode = STOP_CODES[output.stop];
    result.error = output.error;
  } else if (overCap !== null) {
    result.errorCode = 'limit-exceeded';
    result.error = overCap;
  }
  return result;
}
