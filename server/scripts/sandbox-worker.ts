/**
 * The worker thread a script runs in. just-bash interprets a script on the thread that calls `exec()`, and a busy
 * loop never yields to the event loop: measured here, `while true; do :; done` left a 10 ms interval 5 ticks in
 * 2 s, so the whole server froze until just-bash's own deadline. In a worker the server stays responsive, and
 * `terminate()` is a hard stop that does not depend on the script reaching a statement boundary (it also ends
 * the nested worker just-bash starts for Python).
 *
 * The worker's code is a plain-JavaScript string, not a module file: it must load the same way under tsx, vitest
 * and a Next.js server bundle, and none of those agree on how to start a worker from a TypeScript file. It only
 * rebuilds the filesystem from a snapshot and calls `exec()`; validation, the host-file copy and the reading of
 * the result stay in typed code on the main thread.
 *
 * The sandbox it builds:
 *   /skills/<name>/  the skill's snapshot, read-only (every write throws EROFS, naming the sandbox path)
 *   /tmp/            writable scratch (in memory, capped); the working directory
 * No `network`/`fetch` option is given, so just-bash registers no `curl`/`wget`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { BashOptions } from 'just-bash';
import { z } from 'zod';
import type { SnapshotEntry } from './snapshot';

export type SandboxLimits = NonNullable<BashOptions['executionLimits']>;

export interface SandboxInput {
  /** `file:` URL of just-bash's ESM bundle (its CJS bundle cannot start Python: "Invalid URL"). */
  justBashUrl: string;
  entries: SnapshotEntry[];
  skillPath: string;
  /** `bash` or `python3` and their argv (the runner; see `invocation` in run.ts). Never parsed by a shell. */
  command: string;
  args: string[];
  env: Record<string, string>;
  python: boolean;
  limits: SandboxLimits;
  maxScratchBytes: number;
  maxSkillBytes: number;
}

export type SandboxOutput =
  | { kind: 'done'; exitCode: number; stdout: string; stderr: string }
  /** `exec()` itself threw (just-bash does that for a redirect into a read-only mount). */
  | { kind: 'threw'; message: string }
  /** The worker failed before or around `exec()` (could not load just-bash, bad snapshot, ...). */
  | { kind: 'crashed'; message: string };

/** The run itself, given `workerData` and `parentPort` (a worker's, or the child process's stand-ins). */
export const WORKER_BODY = `

const messageOf = (error) => (error && typeof error.message === 'string' ? error.message : String(error));

(async () => {
  const { Bash, InMemoryFs, MountableFs } = await import(workerData.justBashUrl);

  // InMemoryFs has no read-only switch. Writes reject with an EROFS error like a read-only mount's; the message
  // names the sandbox path because a mounted filesystem only sees paths relative to its mount.
  class ReadOnlyFs {
    constructor(inner, mountPoint) {
      this.inner = inner;
      this.mountPoint = mountPoint;
    }
    refuse(operation, target) {
      const error = new Error('EROFS: read-only file system, ' + operation + " '" + this.mountPoint + (target === '/' ? '' : target) + "'");
      error.code = 'EROFS';
      return Promise.reject(error);
    }
    readFile(p, o) { return this.inner.readFile(p, o); }
    readFileBytes(p) { return this.inner.readFileBytes(p); }
    readFileBuffer(p) { return this.inner.readFileBuffer(p); }
    exists(p) { return this.inner.exists(p); }
    stat(p) { return this.inner.stat(p); }
    lstat(p) { return this.inner.lstat(p); }
    readdir(p) { return this.inner.readdir(p); }
    readdirWithFileTypes(p) { return this.inner.readdirWithFileTypes(p); }
    readlink(p) { return this.inner.readlink(p); }
    realpath(p) { return this.inner.realpath(p); }
    resolvePath(b, p) { return this.inner.resolvePath(b, p); }
    getAllPaths() { return this.inner.getAllPaths(); }
    writeFile(p) { return this.refuse('write', p); }
    appendFile(p) { return this.refuse('append', p); }
    mkdir(p) { return this.refuse('mkdir', p); }
    rm(p) { return this.refuse('rm', p); }
    cp(_s, d) { return this.refuse('cp', d); }
    mv(s) { return this.refuse('mv', s); }
    chmod(p) { return this.refuse('chmod', p); }
    symlink(_t, l) { return this.refuse('symlink', l); }
    link(_e, n) { return this.refuse('link', n); }
    utimes(p) { return this.refuse('utimes', p); }
  }

  const skill = new InMemoryFs(undefined, { maxTotalBytes: workerData.maxSkillBytes });
  for (const entry of workerData.entries) {
    if (entry.type === 'dir') skill.mkdirSync(entry.path, { recursive: true });
    else if (entry.type === 'file') skill.writeFileSync(entry.path, entry.data, undefined, { mode: entry.mode });
    else await skill.symlink(entry.target, entry.path);
  }
  const scratch = new InMemoryFs(undefined, { maxTotalBytes: workerData.maxScratchBytes });
  // Python chdirs into the working directory first; it must exist as a folder, not only implicitly.
  scratch.mkdirSync('/tmp', { recursive: true });

  const bash = new Bash({
    fs: new MountableFs({
      base: scratch,
      mounts: [{ mountPoint: workerData.skillPath, filesystem: new ReadOnlyFs(skill, workerData.skillPath) }],
    }),
    cwd: '/tmp',
    env: workerData.env,
    python: workerData.python,
    // 'hardened' tightens every limit not set explicitly (awk/sed/jq loops, brace expansion, archives, ...).
    executionLimitProfile: 'hardened',
    executionLimits: workerData.limits,
  });
  let output;
  try {
    const result = await bash.exec(workerData.command, { args: workerData.args });
    output = { kind: 'done', exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
  } catch (error) {
    output = { kind: 'threw', message: messageOf(error) };
  }
  parentPort.postMessage(output);
})().catch((error) => parentPort.postMessage({ kind: 'crashed', message: messageOf(error) }));
`;

const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
${WORKER_BODY}`;

let cachedUrl: string | undefined;

const manifestSchema = z.object({
  exports: z.object({ '.': z.object({ import: z.object({ default: z.string() }) }) }),
});

/** The ESM entry named by a just-bash package.json (`exports["."].import.default`), if it is there. */
function esmEntry(packageDir: string): string | undefined {
  try {
    const manifest: unknown = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
    const parsed = manifestSchema.safeParse(manifest);
    if (!parsed.success) return undefined;
    const file = path.resolve(packageDir, parsed.data.exports['.'].import.default);
    return fs.existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where just-bash's ESM bundle is, found by walking up to a `node_modules/just-bash` from this module's folder and
 * from the working directory (the app starts with its own folder as cwd). Deliberately not `require.resolve`:
 * bundlers rewrite that into a module id, and the worker needs a real file.
 */
export function justBashUrl(): string {
  if (cachedUrl) return cachedUrl;
  const starts: string[] = [process.cwd()];
  try {
    starts.unshift(path.dirname(fileURLToPath(import.meta.url)));
  } catch {
    // Inside a bundle import.meta.url may not be a file URL; the working directory still is.
  }
  for (const start of starts) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      const file = esmEntry(path.join(dir, 'node_modules', 'just-bash'));
      if (file) {
        cachedUrl = pathToFileURL(file).href;
        return cachedUrl;
      }
      if (path.dirname(dir) === dir) break;
    }
  }
  throw new Error('just-bash is not installed (npm install just-bash)');
}

/**
 * Starts one sandbox run in a fresh worker. File bytes are transferred, not copied. The caller owns the worker:
 * it must `terminate()` it when the run ends, however it ends.
 */
export function startSandboxWorker(input: SandboxInput, options: { maxHeapMb: number }): Worker {
  const transfer = input.entries.flatMap((entry) => (entry.type === 'file' ? [entry.data.buffer as ArrayBuffer] : []));
  return new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: input,
    transferList: transfer,
    // Caps the sandbox's JS heap (strings, the in-memory filesystems); Python's WASM memory is not covered.
    resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb },
    // The sandbox gets no copy of the server's environment (API keys) or its stdio.
    env: {},
    stdout: true,
    stderr: true,
  });
}
