/**
 * The port every sandbox backend implements, and what a run returns. A backend gets a fully resolved request (the
 * argv, the read-only folders, the run's files, the limits, the uid its slot lent it) and returns a result; it
 * never decides policy. How it isolates (namespaces, a seccomp filter, a container, a remote engine), what it
 * mounts beside the request's folders (a toolchain) and how it says it cannot run here are its own. The backends
 * are listed in select.ts, which chooses one per process; see docs/ARCHITECTURE.md ("Running code") for why there
 * is no in-process fallback.
 */
import type { SandboxEgress } from '../egress/types';
import { RUNTIME_MOUNT } from '../toolchain/skills-runtime';
import type { SandboxFiles } from '../workspace/run-files';

/** `bwrap` (bwrap.ts) here; a test or another engine names its own. */
export type BackendName = string;

export interface SandboxLimits {
  /** Wall-clock time for the run, ms. */
  timeoutMs: number;
  /** CPU seconds (RLIMIT_CPU). */
  cpuSeconds: number;
  /** Memory, MiB: RLIMIT_AS per process, and the run's memory cgroup where there is one (run-cgroup.ts). */
  memoryMb: number;
  /**
   * Processes and threads the run may have at once: its pids cgroup where there is one, else RLIMIT_NPROC counted
   * for the run's own uid.
   */
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
  /** What runs inside: `['python3', '/skill/scripts/x.py', ...args]`, `['bash', '-c', cmd]`, found on its PATH. */
  argv: string[];
  /** Read-only folders: the skill being run, the chat's activated skills. */
  mounts: SandboxMount[];
  /** The run's files: read-write at `/workspace`, the working directory; over their caps, the run is stopped. */
  workspace: SandboxFiles;
  /** Extra environment (on top of the sandbox's own, built from nothing). */
  env?: Record<string, string>;
  limits: SandboxLimits;
  /** The uid the run's slot lent it; each concurrent run has its own, so a backend can keep their budgets apart. */
  uid: number;
  signal?: AbortSignal;
  /** Output as it arrives (already counted against the cap), for a card that shows a command while it runs. */
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  /** The run's way out through its own proxy (egress/); absent: no network at all. */
  egress?: SandboxEgress;
  /** `runtime.installs` is `allow` and the run has a chat: its layer and its package indexes (sandbox/installs.ts). */
  installs?: SandboxInstalls;
  /** Host folder of LibreOffice's prepared profile and its `soffice` wrappers (office-profile.ts), read-only. */
  office?: string;
  /**
   * The chat's kept LibreOffice (office-host.ts): for a run of the chat, `socket`, the host path of the socket its
   * `soffice --convert-to` asks; for the host itself, `folder`, the host folder it listens in (read-write).
   */
  officeHost?: { socket: string } | { folder: string };
}

/**
 * What `pip install` and `npm install` in a run write to and read from. The index hosts are reached through the
 * run's egress, as any host is; a backend binds the layer and the folders and tells pip and npm where they are.
 */
export interface SandboxInstalls {
  /** Host folder of the chat's layer, read-write at `SANDBOX_PATHS.layer`. */
  layer: string;
  pip: { index: string; extra: string[]; findLinks: string[] };
  npm: string;
  /** Host folders of `file://` indexes and find-links, read-only at the same path. */
  folders: string[];
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
  /** A failed run's missing package or program, and how the operator installs it (the backend knows its toolchain). */
  hint?: string;
  durationMs: number;
  /** The most memory the run held at once, bytes, where its cgroup measures it (shared memory included). */
  memoryPeakBytes?: number;
}

/** Whether a backend can run code here, and what to show on /admin. */
export type Availability =
  | {
      ok: true;
      /** `bubblewrap 0.8.0`. */
      version: string;
      /** The version and how runs are kept apart, in words. */
      detail: string;
      /** Each concurrent run as its own uid (the slot's), so one run's processes do not count against another's. */
      perRunUid: boolean;
      /** How the memory and process limits are enforced here and what counts toward them, in words. */
      enforcement?: { memory: string; processes: string };
    }
  | { ok: false; reason: string };

export interface SandboxBackend {
  name: BackendName;
  /** How /admin names it: `bubblewrap`. */
  label: string;
  /** Tries a real (empty) run: a program that exists may still be refused by the kernel. Called once per process. */
  probe(): Promise<Availability>;
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
  /** The chat's own packages (`pip install`, `npm install -g` with `runtime.installs: allow`). */
  layer: '/opt/skillchat-layer',
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
