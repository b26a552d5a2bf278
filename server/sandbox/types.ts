/**
 * The one interface every script sandbox implements. A backend gets a fully resolved request (which interpreter,
 * which folders, which limits) and returns a result; it never decides policy. Backends today: `bwrap` (Linux
 * namespaces, the real interpreters) and `just-bash` (portable fallback, simulated shell). A container backend
 * (podman/docker) would be a third implementation of `SandboxBackend`.
 */

export type BackendName = 'bwrap' | 'just-bash';

export interface SandboxLimits {
  /** Wall-clock time for the run, ms. */
  timeoutMs: number;
  /** CPU seconds (RLIMIT_CPU). */
  cpuSeconds: number;
  /** Address space, MiB (RLIMIT_AS). */
  memoryMb: number;
  /** Processes and threads the script may have at once (RLIMIT_NPROC, per sandbox uid). */
  maxProcesses: number;
  /** Bytes kept of stdout and of stderr together; past it the run is stopped. */
  maxOutputBytes: number;
  /**
   * Bytes the workspace may hold, checked while the script runs (every `WORKSPACE_POLL_MS`) and after it; also the
   * largest file a script may write (RLIMIT_FSIZE).
   */
  maxWorkspaceBytes: number;
  /** Files, folders and links the workspace may hold at any depth, checked like `maxWorkspaceBytes`. */
  maxWorkspaceEntries: number;
  /** Size of the in-sandbox /tmp (tmpfs), MiB. */
  tmpMb: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  timeoutMs: 30_000,
  cpuSeconds: 30,
  memoryMb: 1024,
  maxProcesses: 64,
  maxOutputBytes: 64 * 1024,
  maxWorkspaceBytes: 256 * 1024 * 1024,
  maxWorkspaceEntries: 10_000,
  tmpMb: 64,
};

export interface SandboxRequest {
  /** Interpreter argv inside the sandbox (e.g. `['python3']`), the script path (sandbox path) and its arguments. */
  interpreter: string[];
  script: string;
  args: string[];
  /** Host folder of the skill; mounted read-only at `skillMount`. */
  skillDir: string;
  /** Host folder of the chat workspace; mounted read-write at `/workspace`, the working directory. */
  workspaceDir: string;
  /** Host folder of the skills runtime (venv + node_modules), mounted read-only; null when not installed. */
  runtimeDir: string | null;
  limits: SandboxLimits;
  signal?: AbortSignal;
}

export type SandboxStop =
  | 'timeout'
  | 'aborted'
  | 'output-limit'
  | 'workspace-limit'
  | 'memory'
  | 'cpu'
  | 'sandbox-error';

/** How often a running sandbox's workspace is measured. */
export const WORKSPACE_POLL_MS = 200;

export interface SandboxResult {
  exitCode: number;
  /** Signal that ended the process, when one did. */
  signal: string | null;
  stdout: string;
  /** stdout as bytes, for tools that print binary (a PNG preview). */
  stdoutBytes?: Buffer;
  stderr: string;
  truncated: boolean;
  stop: SandboxStop | null;
  /** A message for a person or model when `stop` is set. */
  error?: string;
  durationMs: number;
}

export interface SandboxBackend {
  name: BackendName;
  run(request: SandboxRequest): Promise<SandboxResult>;
}

/** Fixed paths inside the sandbox: nothing of the host's layout shows through. */
export const SANDBOX_PATHS = {
  workspace: '/workspace',
  skill: '/skill',
  runtime: '/opt/skillchat-runtime',
} as const;
