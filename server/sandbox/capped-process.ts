/**
 * Starts a sandbox process and reads its output with a hard cap: bytes past `maxOutputBytes` are never kept (a
 * script printing 200 MB costs the server one chunk at a time, not 200 MB), and crossing the cap stops the run.
 * The process gets its own process group, so a timeout, an abort or the cap kills everything it started.
 */
import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { SandboxResult, SandboxStop } from './port';

export interface SpawnSpec {
  command: string;
  args: string[];
  /** The whole environment of the spawned process: never the server's. */
  env: Record<string, string>;
  /**
   * Handed to the child as fds 3, 4, ...: a descriptor as it is, or bytes the child reads from a pipe of its own up
   * to its end (what must not appear on a command line).
   */
  extraFds?: Array<number | Buffer>;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  /**
   * Checked every `everyMs` while the process runs (never two at once); a stop it returns kills the group, like
   * the output cap. Used for limits the kernel cannot enforce on a bind mount (the workspace's total size).
   */
  watch?: { everyMs: number; check: () => Promise<SandboxStop | null> };
  /** Each chunk kept (within the cap) as it arrives. */
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  /**
   * Holds the process at a gate until `open` is done: it gets two more fds after `extraFds`, the first one it writes
   * what `open` is given into and closes (bwrap's `--info-fd`), the second one it waits on until a byte arrives
   * (`--block-fd`). A failed `open` stops the run as a sandbox error. Used to move the sandbox into its cgroup
   * before any of the run's code starts, without a wrapper process.
   */
  gate?: { open: (info: string) => Promise<void> };
}

const STOP_MESSAGES: Record<SandboxStop, string> = {
  timeout: 'the script ran past the time limit and was stopped',
  aborted: 'the run was cancelled',
  'output-limit': 'the script wrote more output than allowed and was stopped',
  'workspace-limit': 'the script filled the workspace past its limit and was stopped',
  memory: 'the script used more memory than allowed',
  cpu: 'the script used more CPU time than allowed and was stopped',
  processes: 'the run reached its limit of processes and could not start more',
  'sandbox-error': 'the sandbox could not run the script',
};

export function stopMessage(stop: SandboxStop): string {
  return STOP_MESSAGES[stop];
}

/** Collects at most `cap` bytes across both streams; reports whether anything was dropped. */
class CappedOutput {
  private readonly chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  kept = 0;
  overflowed = false;
  constructor(private readonly cap: number) {}

  push(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    const room = this.cap - this.kept;
    if (chunk.length > room) {
      this.overflowed = true;
      if (room > 0) this.chunks[stream].push(chunk.subarray(0, room));
      this.kept = this.cap;
      return;
    }
    this.chunks[stream].push(chunk);
    this.kept += chunk.length;
  }

  bytes(stream: 'stdout' | 'stderr'): Buffer {
    return Buffer.concat(this.chunks[stream]);
  }

  text(stream: 'stdout' | 'stderr'): string {
    // A cut may split a UTF-8 character; the decoder's replacement character marks it, which is honest.
    return Buffer.concat(this.chunks[stream]).toString('utf8');
  }
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export function runCapped(spec: SpawnSpec): Promise<SandboxResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const output = new CappedOutput(spec.maxOutputBytes);
    let stop: SandboxStop | null = null;
    const child = spawn(/*turbopackIgnore: true*/ spec.command, spec.args, {
      env: spec.env as NodeJS.ProcessEnv,
      detached: true,
      stdio: [
        'ignore',
        'pipe',
        'pipe',
        ...(spec.extraFds ?? []).map((fd) => (typeof fd === 'number' ? fd : ('pipe' as const))),
        ...(spec.gate ? (['pipe', 'pipe'] as const) : []),
      ],
    });
    (spec.extraFds ?? []).forEach((fd, i) => {
      if (typeof fd === 'number') return;
      const pipe = child.stdio[3 + i] as Writable | null;
      // A child that dies before reading it closes the pipe: nothing to report, the run's result says why.
      pipe?.on('error', () => {});
      pipe?.end(fd);
    });
    const halt = (why: SandboxStop) => {
      stop ??= why;
      killGroup(child.pid);
    };
    if (spec.gate) {
      const at = 3 + (spec.extraFds?.length ?? 0);
      const info = child.stdio[at] as Readable | null;
      const block = child.stdio[at + 1] as Writable | null;
      block?.on('error', () => {});
      const chunks: Buffer[] = [];
      info?.on('data', (chunk: Buffer) => chunks.push(chunk));
      info?.on('error', () => {});
      info?.once('end', () => {
        const { open } = spec.gate as NonNullable<SpawnSpec['gate']>;
        open(Buffer.concat(chunks).toString('utf8')).then(
          () => block?.end('1'),
          (error: Error) => {
            console.error(`[skillchat] sandbox: ${error.message}`);
            halt('sandbox-error');
          },
        );
      });
    }
    const onData = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      if (stop) return;
      const before = output.kept;
      output.push(stream, chunk);
      if (spec.onOutput && output.kept > before) {
        spec.onOutput(stream, chunk.subarray(0, output.kept - before).toString('utf8'));
      }
      if (output.overflowed) halt('output-limit');
    };
    child.stdout?.on('data', onData('stdout'));
    child.stderr?.on('data', onData('stderr'));
    const timer = setTimeout(() => halt('timeout'), spec.timeoutMs);
    let checking = false;
    const watcher = spec.watch
      ? setInterval(() => {
          if (checking || stop) return;
          checking = true;
          spec
            .watch!.check()
            .then((why) => {
              if (why) halt(why);
            })
            .catch(() => {})
            .finally(() => {
              checking = false;
            });
        }, spec.watch.everyMs)
      : undefined;
    const onAbort = () => halt('aborted');
    if (spec.signal?.aborted) onAbort();
    spec.signal?.addEventListener('abort', onAbort, { once: true });

    let spawnError: Error | null = null;
    child.once('error', (error) => {
      spawnError = error;
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      clearInterval(watcher);
      spec.signal?.removeEventListener('abort', onAbort);
      // The group may still hold children that closed their pipes early; the run is over for all of them.
      killGroup(child.pid);
      if (spawnError) stop = 'sandbox-error';
      resolve({
        exitCode: code ?? 128,
        signal: signal ?? null,
        stdout: output.text('stdout'),
        stdoutBytes: output.bytes('stdout'),
        stderr: output.text('stderr'),
        truncated: output.overflowed,
        stop,
        ...(stop ? { error: stopMessage(stop) } : {}),
        durationMs: Math.round(performance.now() - started),
      });
    });
  });
}
