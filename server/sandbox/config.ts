/**
 * Configuration of running code: the sandbox, chat workspaces, the skills runtime and the model's shell (`sandbox`,
 * `workspace`, `runtime` and `shell` in skillchat.config.json). Kept beside the sandbox so `server/config.ts` only
 * plugs the schemas in.
 */
import path from 'node:path';
import * as z from 'zod/mini';
import { count, text } from '../config-parts';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './port';

/** The sandbox backends by name, each made by its entry in select.ts's BACKENDS. */
export const SANDBOX_BACKENDS = ['bwrap'] as const;
export type SandboxBackendName = (typeof SANDBOX_BACKENDS)[number];

function isBackendSetting(value: string | undefined): value is 'auto' | SandboxBackendName {
  return value === 'auto' || (SANDBOX_BACKENDS as readonly string[]).includes(value ?? '');
}

export const sandboxConfigSchema = z.strictObject({
  /** One backend by name, or `auto`: the first that can start a sandbox here (none: no code runs). */
  backend: z._default(z.enum(['auto', ...SANDBOX_BACKENDS]), 'auto'),
  /**
   * First uid of the range runs are lent when the server runs as root (RLIMIT_NPROC does not apply to root): run
   * slot N runs as `uid + N`, and every run shares gid `uid`.
   */
  uid: z._default(z.int().check(z.gte(1), z.lte(2 ** 31 - 1024)), 100_000),
  /**
   * Where each run's memory and pids cgroup is made (run-cgroup.ts): `auto`, under the server's own cgroup; a cgroup
   * path such as `/skillchat` (the same path in each v1 hierarchy, or in the v2 tree); `off`, none (the fallback:
   * no memfd or SysV shared memory, RLIMIT_NPROC per uid).
   */
  cgroup: z._default(text(), 'auto'),
  /** Runs at once on this server (scripts, commands, previews, document reading); more wait their turn, fairly. */
  maxConcurrentRuns: z._default(z.int().check(z.gte(1), z.lte(256)), 4),
  /**
   * Chats whose LibreOffice is kept running at once for their later `soffice --convert-to` (office-host.ts), each
   * lent a uid after the run slots'; 0: none, every conversion starts LibreOffice.
   */
  officeHosts: z._default(z.int().check(z.gte(0), z.lte(64)), 2),
  /** Seconds a chat's kept LibreOffice waits for another run of the chat before it ends. */
  officeIdleSeconds: count(120),
  timeoutMs: count(DEFAULT_SANDBOX_LIMITS.timeoutMs),
  cpuSeconds: count(DEFAULT_SANDBOX_LIMITS.cpuSeconds),
  memoryMb: z._default(z.int().check(z.gte(64)), DEFAULT_SANDBOX_LIMITS.memoryMb),
  maxProcesses: z._default(z.int().check(z.gte(4)), DEFAULT_SANDBOX_LIMITS.maxProcesses),
  maxOutputBytes: count(DEFAULT_SANDBOX_LIMITS.maxOutputBytes),
  tmpMb: count(DEFAULT_SANDBOX_LIMITS.tmpMb),
});

export const workspaceConfigSchema = z.strictObject({
  /** Folder holding one workspace per chat. Default `<data folder>/workspaces`. */
  dir: z.optional(text()),
  maxUploadBytes: count(25 * 1024 * 1024),
  maxFiles: count(100),
  maxWorkspaceBytes: count(DEFAULT_SANDBOX_LIMITS.maxWorkspaceBytes),
  /** Files, folders and links at any depth; a script passing it is stopped (uploads stop at `maxFiles`). */
  maxWorkspaceEntries: count(DEFAULT_SANDBOX_LIMITS.maxWorkspaceEntries),
  /** One person's files across all their chats: eight chats at the chat cap. */
  maxPersonBytes: count(2 * 1024 * 1024 * 1024),
  /** Everyone's files on this server: ten people at the person cap, and a disk of a modest team server. */
  maxServerBytes: count(20 * 1024 * 1024 * 1024),
});

export const DEFAULT_PYTHON_PACKAGES = [
  'pypdf',
  'pdfplumber',
  'openpyxl',
  'python-docx',
  'python-pptx',
  'lxml',
  'defusedxml',
  'pillow',
  'reportlab',
  'pdf2image',
  'markitdown',
  'pandas',
  // What skills that reach the network import (requests brings certifi, urllib3, idna, charset-normalizer), and
  // pyyaml (skill-creator's quick_validate.py).
  'pyyaml',
  'requests',
  'httpx',
];
export const DEFAULT_NODE_PACKAGES = ['pptxgenjs', 'docx', 'exceljs', 'pdf-lib'];

export const INSTALL_MODES = ['off', 'allow'] as const;
export type InstallMode = (typeof INSTALL_MODES)[number];

export const runtimeConfigSchema = z.strictObject({
  /** Folder of the runtime (`python/` venv, `node/` packages). Default `<app>/data/runtime`. */
  dir: z.optional(text()),
  /** Interpreter the venv is made from; must live under /usr so the sandbox can see it. */
  python: z._default(text(), '/usr/bin/python3'),
  pythonPackages: z._default(z.array(text()), DEFAULT_PYTHON_PACKAGES),
  nodePackages: z._default(z.array(text()), DEFAULT_NODE_PACKAGES),
  /**
   * `allow`: `pip install` and `npm install` in a run reach the package indexes (below, or discovered from pip's and
   * npm's own config) and nothing else, GET and HEAD only, into a layer of the chat's own. `off`: runs have no index
   * at all, and an install fails at once with a hint.
   */
  installs: z._default(z.enum(INSTALL_MODES), 'off'),
  /**
   * The indexes installs reach, instead of what `pip config list` and `npm config get registry` say: pip's index
   * URLs (the first is the index, the rest extra indexes), folders or URLs of wheels (`findLinks`), npm's registry.
   */
  indexes: z.optional(
    z.strictObject({
      pip: z._default(z.array(text()), []),
      findLinks: z._default(z.array(text()), []),
      npm: z.optional(text()),
    }),
  ),
});

export const SHELL_MODES = ['off', 'ask', 'allow'] as const;
export type ShellMode = (typeof SHELL_MODES)[number];

export const shellConfigSchema = z.strictObject({
  /**
   * Whether the model may run command lines in the chat's sandbox (`sandbox_exec`): `off`, `ask` (the person
   * approves each command) or `allow`. Unset: `allow` on a loopback install, `ask` on an exposed one (shell.ts).
   */
  mode: z.optional(z.enum(SHELL_MODES)),
  /** Per-person overrides on a team server: email -> mode. */
  people: z._default(z.record(text(), z.enum(SHELL_MODES)), {}),
});

export type SandboxConfigInput = z.input<typeof sandboxConfigSchema>;

export interface ExecutionConfig {
  sandbox: z.infer<typeof sandboxConfigSchema>;
  workspace: z.infer<typeof workspaceConfigSchema> & { dir: string };
  runtime: z.infer<typeof runtimeConfigSchema> & { dir: string };
  shell: z.infer<typeof shellConfigSchema>;
}

/** Fills defaults; relative folders are relative to the app folder, defaults sit in the database's folder. */
export function resolveExecutionConfig(
  file: {
    sandbox?: z.input<typeof sandboxConfigSchema>;
    workspace?: z.input<typeof workspaceConfigSchema>;
    runtime?: z.input<typeof runtimeConfigSchema>;
    shell?: z.input<typeof shellConfigSchema>;
  },
  appDir: string,
  dataDir: string,
  env: Readonly<Record<string, string | undefined>> = {},
): ExecutionConfig {
  const sandbox = sandboxConfigSchema.parse(file.sandbox ?? {});
  const backend = env.SKILLCHAT_SANDBOX;
  if (isBackendSetting(backend)) sandbox.backend = backend;
  const workspace = workspaceConfigSchema.parse(file.workspace ?? {});
  const runtime = runtimeConfigSchema.parse(file.runtime ?? {});
  const shell = shellConfigSchema.parse(file.shell ?? {});
  const shellEnv = env.SKILLCHAT_SHELL;
  if (shellEnv === 'off' || shellEnv === 'ask' || shellEnv === 'allow') shell.mode = shellEnv;
  return {
    sandbox,
    shell,
    workspace: {
      ...workspace,
      dir: path.resolve(
        /*turbopackIgnore: true*/ appDir,
        workspace.dir ?? path.join(/*turbopackIgnore: true*/ dataDir, 'workspaces'),
      ),
    },
    runtime: {
      ...runtime,
      // Not beside the database: a test or second instance with its own database still uses the one runtime.
      dir: path.resolve(
        /*turbopackIgnore: true*/ appDir,
        env.SKILLCHAT_RUNTIME_DIR ?? runtime.dir ?? path.join(/*turbopackIgnore: true*/ 'data', 'runtime'),
      ),
    },
  };
}

export function sandboxLimits(config: ExecutionConfig): SandboxLimits {
  const { sandbox, workspace } = config;
  return {
    timeoutMs: sandbox.timeoutMs,
    cpuSeconds: sandbox.cpuSeconds,
    memoryMb: sandbox.memoryMb,
    maxProcesses: sandbox.maxProcesses,
    maxOutputBytes: sandbox.maxOutputBytes,
    maxWorkspaceBytes: workspace.maxWorkspaceBytes,
    maxWorkspaceEntries: workspace.maxWorkspaceEntries,
    tmpMb: sandbox.tmpMb,
  };
}
