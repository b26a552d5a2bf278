/**
 * A second sandbox backend, for tests: bubblewrap driven through another process. The server side is only the port
 * (`SandboxBackend`): each run is a message down a pipe to a helper process (bwrap-helper.ts), which starts the
 * sandbox; output, the helper's questions about the run's files (`overCap`, answered here through the workspace
 * interface) and the result come back as messages, and Stop is a message too. It has the shape of a backend whose
 * sandboxes run elsewhere (commands over an API), so the suites that pass through it show the port holds.
 */
import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import type { ExecutionConfig } from '../../server/sandbox/config';
import type { Availability, SandboxBackend, SandboxRequest, SandboxResult } from '../../server/sandbox/port';

/** What travels down the pipe: everything of a request but its functions and signal. */
export interface WireRequest extends Omit<SandboxRequest, 'workspace' | 'signal' | 'onOutput'> {
  workspaceDir: string;
}

export type ToHelper =
  | { type: 'probe'; id: number; sandboxGid: number }
  | { type: 'run'; id: number; sandboxGid: number; runtimeDir: string; request: WireRequest }
  | { type: 'abort'; id: number }
  | { type: 'over-cap'; id: number; ask: number; message: string | null };

export type FromHelper =
  | { type: 'probed'; id: number; availability: Availability }
  | { type: 'output'; id: number; stream: 'stdout' | 'stderr'; text: string }
  | { type: 'over-cap?'; id: number; ask: number }
  | { type: 'result'; id: number; result: Omit<SandboxResult, 'stdoutBytes'> & { stdoutBase64: string } };

export const PIPED_BACKEND = 'bwrap-piped';

export interface PipedBackends {
  /** The backend for one run's settings (what `replaceSandboxBackend` is given). */
  make(config: Pick<ExecutionConfig, 'sandbox' | 'runtime'>): SandboxBackend;
  /** Ends the helper process. */
  close(): void;
}

export function startPipedBwrap(): PipedBackends {
  let helper: ChildProcess | null = null;
  let next = 0;
  const pending = new Map<number, (message: FromHelper) => void>();

  const connect = (): ChildProcess => {
    if (helper) return helper;
    const child = fork(path.join(import.meta.dirname, 'bwrap-helper.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.on('message', (message: FromHelper) => pending.get(message.id)?.(message));
    child.on('exit', () => {
      helper = null;
    });
    helper = child;
    return child;
  };

  const send = (message: ToHelper) => connect().send(message);

  return {
    make(config) {
      const sandboxGid = config.sandbox.uid;
      return {
        name: PIPED_BACKEND,
        label: 'bubblewrap through a helper process',
        probe() {
          const id = ++next;
          return new Promise((resolve) => {
            pending.set(id, (message) => {
              if (message.type !== 'probed') return;
              pending.delete(id);
              resolve(message.availability);
            });
            send({ type: 'probe', id, sandboxGid });
          });
        },
        run(request) {
          const id = ++next;
          const { workspace, signal, onOutput, ...rest } = request;
          return new Promise((resolve) => {
            const onAbort = () => send({ type: 'abort', id });
            pending.set(id, (message) => {
              if (message.type === 'output') onOutput?.(message.stream, message.text);
              else if (message.type === 'over-cap?') {
                void workspace
                  .overCap()
                  .then((over) => send({ type: 'over-cap', id, ask: message.ask, message: over }));
              } else if (message.type === 'result') {
                pending.delete(id);
                signal?.removeEventListener('abort', onAbort);
                const { stdoutBase64, ...result } = message.result;
                resolve({ ...result, stdoutBytes: Buffer.from(stdoutBase64, 'base64') });
              }
            });
            send({
              type: 'run',
              id,
              sandboxGid,
              runtimeDir: config.runtime.dir,
              request: { ...rest, workspaceDir: workspace.dir },
            });
            if (signal?.aborted) onAbort();
            else signal?.addEventListener('abort', onAbort, { once: true });
          });
        },
      };
    },
    close() {
      helper?.disconnect();
      helper = null;
    },
  };
}
