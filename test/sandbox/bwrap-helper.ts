/**
 * The helper process of the piped backend (piped-bwrap.ts): receives run requests over its IPC pipe and runs each
 * with the bubblewrap backend, asking the server side whether the run's files are over their caps, and sending
 * output and the result back. It ends when the pipe closes.
 */
import { createBwrapBackend } from '../../server/sandbox/bwrap';
import type { SandboxFiles } from '../../server/workspace/run-files';
import type { FromHelper, ToHelper } from './piped-bwrap';

const runs = new Map<number, AbortController>();
const answers = new Map<string, (message: string | null) => void>();
let asks = 0;

const reply = (message: FromHelper) => process.send?.(message);

/** The run's files as the helper sees them: the folder, and the caps checked by the server side over the pipe. */
function filesOf(id: number, dir: string): SandboxFiles {
  return {
    dir,
    overCap: () =>
      new Promise((resolve) => {
        const ask = ++asks;
        answers.set(`${id}:${ask}`, resolve);
        reply({ type: 'over-cap?', id, ask });
      }),
  };
}

process.on('message', async (message: ToHelper) => {
  if (message.type === 'abort') runs.get(message.id)?.abort();
  else if (message.type === 'over-cap') {
    const key = `${message.id}:${message.ask}`;
    answers.get(key)?.(message.message);
    answers.delete(key);
  } else if (message.type === 'probe') {
    const availability = await createBwrapBackend({ sandboxGid: message.sandboxGid }).probe();
    reply({ type: 'probed', id: message.id, availability });
  } else {
    const { id, request } = message;
    const controller = new AbortController();
    runs.set(id, controller);
    const backend = createBwrapBackend({ sandboxGid: message.sandboxGid, runtimeDir: message.runtimeDir });
    const { workspaceDir, ...rest } = request;
    const { stdoutBytes, ...result } = await backend.run({
      ...rest,
      workspace: filesOf(id, workspaceDir),
      signal: controller.signal,
      onOutput: (stream, text) => reply({ type: 'output', id, stream, text }),
    });
    runs.delete(id);
    reply({
      type: 'result',
      id,
      result: { ...result, stdoutBase64: (stdoutBytes ?? Buffer.alloc(0)).toString('base64') },
    });
  }
});

process.on('disconnect', () => process.exit(0));
