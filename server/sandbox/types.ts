/**
 * The one interface every sandbox backend implements, and what a run returns. A backend gets a fully resolved
 * request (the argv, the folders, the limits, the uid its slot lent it) and returns a result; it never decides
 * policy. The backend today is `bwrap` (Linux namespaces, the real interpreters); a container backend (podman)
 * would be a second implementation of `SandboxBackend`. See docs/ARCHITECTURE.md ("Running code") for why there
 * is no in-process fallback.
 */
import { RUNTIME_MOUNT } from '../toolchain/skills-runtime';

export type BackendName = 'bwrap';

export interface SandboxLimits {
  /** Wall-clock time for the run, ms. */
  timeoutMs: number;
  /** CPU seconds (RLIMIT_CPU). */
  cpuSeconds: number;
  /** Address space, MiB (RLIMIT_AS). */
  memoryMb: number;
  /** Processes and threads the run may have at once (RLIMIT_NPROC, counted for the run's own uid). */
  maxProcesses: number;
  /** Bytes kept of stdout and of stderr together; past it the run is stopped. */
  maxOutputBytes: number;
  /**
   * Bytes the workspace may hold, checked while the run goes on (every `WORKSPACE_POLL_MS`) and after it; also the
   * largest file it may write (RLIMIT_FSIZE).
   */
  maxWorkspaceBytes: number;
  /** Files, folders and links the workspace may hold at any depth, checked like `maxWorkspaceBytes`. */
  maxWorkspaceEntries: number;
  /** Size of the in-sandbox /tmp (tmpfs), MiB. */
  tmpMb: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  timeoutMs: 60_000,
  cpuSeconds: 60,
  memoryMb: 2048,
  maxProcesses: 64,
  maxOutputBytes: 64 * 1024,
  maxWorkspaceBytes: 256 * 1024 * 1024,
  maxWorkspaceEntries: 10_000,
  // LibreOffice's profile and its temporary files live here (HOME=/tmp).
  tmpMb: 256,
};

/** A host folder mounted read-only at a fixed sandbox path. */
export interface SandboxMount {
  host: string;
  /** Absolute path inside the sandbox (`/skill`, `/skills/<name>`). */
  target: string;
}

export interface SandboxRequest {
  /** What runs inside, after the limits prologue: `['python3', '/skill/scripts/x.py', ...args]`, `['bash', '-c', cmd]`. */
  argv: string[];
  /** Read-only folders: the skill being run, the chat's activated skills. */
  mounts: SandboxMount[];
  /** Host folder of the chat workspace; mounted read-write at `/workspace`, the working directory. */
  workspaceDir: string;
  /** Host folder of the skills runtime (venv + node_modules), mounted read-only; null when not installed. */
  runtimeDir: string | null;
  /** Extra environment (on top of `sandboxEnv`). */
  env?: Record<string, string>;
  limits: SandboxLimits;
  /** The uid the run's slot lent it (server as root); each concurrent run has its own, so budgets do not mix. */
  uid: number;
  /** Host file of the compiled seccomp filter, when there is one. */
  seccompFile?: string | null;
  signal?: AbortSignal;
  /** Which limit `limits.maxWorkspaceBytes` is, in words, for the message when a run crosses it. */
  bytesLabel?: string;
  /** Output as it arrives (already counted against the cap), for a card that shows a command while it runs. */
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
}

export type SandboxStop =
  | 'timeout'
  | 'aborted'
  | 'output-limit'
  | 'workspace-limit'
  | 'memory'
  | 'cpu'
  | 'processes'
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
  /** A message for a person or model when `stop` is set: which limit, in words. */
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
  /** The skill whose script `skills_runScript` runs. */
  skill: '/skill',
  /** Every skill the chat has activated, by name: `/skills/<name>`. */
  skills: '/skills',
  runtime: RUNTIME_MOUNT,
} as const;

export type RunErrorCode =
  | 'invalid-path'
  | 'invalid-args'
  | 'invalid-command'
  | 'unsupported-script'
  | 'not-found'
  | 'timeout'
  | 'aborted'
  | 'limit-exceeded'
  | 'output-limit'
  | 'sandbox-error';

/** What a run of a script or a command reports, to the tool, the CLI and the tests. */
export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Wall time of the whole call, queueing excluded. */
  durationMs: number;
  /** Time spent waiting for a free slot before the run started. */
  queuedMs?: number;
  /** Output was cut at `maxOutputBytes`, or the run was stopped for writing too much. */
  truncated: boolean;
  /** Stopped by the time limit. */
  timedOut: boolean;
  /** Which limit stopped the run, when one did. */
  limit?: SandboxStop;
  /** Why the run failed or was stopped, for a person or a model; absent when it simply ran. */
  error?: string;
  errorCode?: RunErrorCode;
  /** A sentence on how to fix a missing runtime package or tool, when the output shows one. */
  hint?: string;
}
