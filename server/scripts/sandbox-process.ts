/**
 * The just-bash fallback in its own process rather than a worker thread of the server: a script that balloons
 * (just-bash's in-memory filesystems, Python's WASM memory, output strings) grows that process, not the server's
 * heap, and a kill is a real SIGKILL. The child runs the same plain-JavaScript body as the worker did
 * (`WORKER_BODY`), fed by IPC instead of `workerData`; its V8 heap is capped with `--max-old-space-size` and it gets
 * an empty environment (no API keys, no admin token, no server paths).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { type SandboxInput, WORKER_BODY } from './sandbox-worker';

const CHILD_SOURCE = `
'use strict';
process.once('message', (workerData) => {
  const parentPort = { postMessage: (message) => process.send(message, () => process.disconnect()) };
  ${WORKER_BODY}
});
`;

export type SandboxChild = ChildProcess & { terminate(): Promise<void> };

/** Starts one run in a fresh process; the caller must `terminate()` it however the run ends. */
export function startSandboxProcess(input: SandboxInput, options: { maxHeapMb: number }): SandboxChild {
  const child = spawn(
    /*turbopackIgnore: true*/ process.execPath,
    [`--max-old-space-size=${options.maxHeapMb}`, '-e', CHILD_SOURCE],
    {
      env: {} as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      // Structured clone over IPC: the skill's file bytes travel as Uint8Array, not JSON arrays of numbers.
      serialization: 'advanced',
    },
  );
  child.send(input);
  return Object.assign(child, {
    terminate: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  });
}
