/**
 * Runs one child (the build, then the server) for `npm start` so that stopping `npm start` stops everything it
 * started: the child gets its own process group, SIGINT/SIGTERM/SIGHUP are passed on once to that whole group
 * (Next's workers and skill-script sandboxes included), and a group still alive after the grace period is killed.
 * The exit code is the child's, or 128 + the signal number when a signal ended it (130 for Ctrl-C), as a shell
 * would report it.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';

export interface SuperviseOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** How long the group may take to stop after a signal before it is killed (ms). */
  graceMs?: number;
  /** Where shutdown notes go (tests capture them). */
  log?: (line: string) => void;
  /** When set, the child's stdout and stderr are piped through this (which must write them on) instead of inherited. */
  onOutput?: (chunk: Buffer, target: NodeJS.WriteStream) => void;
}

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const DEFAULT_GRACE_MS = 10_000;

function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return 128 + (signal ? (os.constants.signals[signal] ?? 0) : 0);
}

/** Signals a whole process group; false when it is already gone. */
function killGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Resolves with the exit code once the child's whole process group is gone. */
export function supervise(command: string, args: readonly string[], options: SuperviseOptions): Promise<number> {
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const log = options.log ?? ((line: string) => console.error(line));
  return new Promise((resolve, reject) => {
    // Own group: a terminal's Ctrl-C reaches only this process, which passes it on once (not twice), and the group
    // can be signalled as a whole.
    const onOutput = options.onOutput;
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: onOutput ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      detached: true,
    });
    if (onOutput) {
      child.stdout?.on('data', (chunk: Buffer) => onOutput(chunk, process.stdout));
      child.stderr?.on('data', (chunk: Buffer) => onOutput(chunk, process.stderr));
    }
    let stopping: NodeJS.Signals | null = null;
    let killTimer: NodeJS.Timeout | undefined;

    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) return; // A second Ctrl-C does not restart the grace period.
      stopping = signal;
      if (child.pid === undefined || !killGroup(child.pid, signal)) return;
      killTimer = setTimeout(() => {
        log(`skillchat: still running ${graceMs / 1000} s after ${signal}; killing it`);
        if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
      }, graceMs);
      killTimer.unref();
    };
    for (const signal of FORWARDED) process.on(signal, onSignal);
    const cleanup = () => {
      for (const signal of FORWARDED) process.off(signal, onSignal);
      if (killTimer) clearTimeout(killTimer);
    };

    child.on('error', (error) => {
      cleanup();
      reject(error);
    });
    child.on('exit', (code, signal) => {
      // The leader is gone; anything it left in its group (a worker that missed the signal) goes with it.
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
      cleanup();
      resolve(exitCodeOf(code, signal));
    });
  });
}
