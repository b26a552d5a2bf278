/**
 * Configuration of the script sandbox, chat workspaces and the skills runtime (`sandbox`, `workspace` and
 * `runtime` in skillchat.config.json). Kept beside the sandbox so `server/config.ts` only plugs the schemas in.
 */
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from './types';

export const sandboxConfigSchema = z
  .object({
    /** `auto` picks bwrap where it can start a sandbox, else just-bash. */
    backend: z.enum(['auto', 'bwrap', 'just-bash']).default('auto'),
    /** uid/gid scripts run as when the server runs as root (RLIMIT_NPROC does not apply to root). */
    uid: z
      .number()
      .int()
      .min(1)
      .max(2 ** 31 - 2)
      .default(65534),
    timeoutMs: z.number().int().positive().default(DEFAULT_SANDBOX_LIMITS.timeoutMs),
    cpuSeconds: z.number().int().positive().default(DEFAULT_SANDBOX_LIMITS.cpuSeconds),
    memoryMb: z.number().int().min(64).default(DEFAULT_SANDBOX_LIMITS.memoryMb),
    maxProcesses: z.number().int().min(4).default(DEFAULT_SANDBOX_LIMITS.maxProcesses),
    maxOutputBytes: z.number().int().positive().default(DEFAULT_SANDBOX_LIMITS.maxOutputBytes),
    tmpMb: z.number().int().positive().default(DEFAULT_SANDBOX_LIMITS.tmpMb),
  })
  .strict();

export const workspaceConfigSchema = z
  .object({
    /** Folder holding one workspace per chat. Default `<data folder>/workspaces`. */
    dir: z.string().min(1).optional(),
    maxUploadBytes: z
      .number()
      .int()
      .positive()
      .default(25 * 1024 * 1024),
    maxFiles: z.number().int().positive().default(100),
    maxWorkspaceBytes: z.number().int().positive().default(DEFAULT_SANDBOX_LIMITS.maxWorkspaceBytes),
    /** Files, folders and links at any depth; a script passing it is stopped (uploads stop at `maxFiles`). */
    maxWorkspaceEntries: z.number().int().positive().default(DEFAULT_SANDBOX_LIMITS.maxWorkspaceEntries),
  })
  .strict();

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
];
export const DEFAULT_NODE_PACKAGES = ['pptxgenjs', 'docx', 'exceljs', 'pdf-lib'];

export const runtimeConfigSchema = z
  .object({
    /** Folder of the runtime (`python/` venv, `node/` packages). Default `<app>/data/runtime`. */
    dir: z.string().min(1).optional(),
    /** Interpreter the venv is made from; must live under /usr so the sandbox can see it. */
    python: z.string().min(1).default('/usr/bin/python3'),
    pythonPackages: z.array(z.string().min(1)).default(DEFAULT_PYTHON_PACKAGES),
    nodePackages: z.array(z.string().min(1)).default(DEFAULT_NODE_PACKAGES),
  })
  .strict();

export type SandboxConfigInput = z.input<typeof sandboxConfigSchema>;

export interface ScriptsConfig {
  sandbox: z.infer<typeof sandboxConfigSchema>;
  workspace: z.infer<typeof workspaceConfigSchema> & { dir: string };
  runtime: z.infer<typeof runtimeConfigSchema> & { dir: string };
}

/** Fills defaults; relative folders are relative to the app folder, defaults sit in the database's folder. */
export function resolveScriptsConfig(
  file: {
    sandbox?: z.input<typeof sandboxConfigSchema>;
    workspace?: z.input<typeof workspaceConfigSchema>;
    runtime?: z.input<typeof runtimeConfigSchema>;
  },
  appDir: string,
  dataDir: string,
  env: Readonly<Record<string, string | undefined>> = {},
): ScriptsConfig {
  const sandbox = sandboxConfigSchema.parse(file.sandbox ?? {});
  const backend = env.SKILLCHAT_SANDBOX;
  if (backend === 'bwrap' || backend === 'just-bash' || backend === 'auto') sandbox.backend = backend;
  const workspace = workspaceConfigSchema.parse(file.workspace ?? {});
  const runtime = runtimeConfigSchema.parse(file.runtime ?? {});
  return {
    sandbox,
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

export function sandboxLimits(config: ScriptsConfig): SandboxLimits {
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
