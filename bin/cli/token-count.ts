/**
 * The catalog's o200k token count for `list`, off the main thread when it helps. Loading the o200k table costs
 * ~350 ms of a fresh process (a 2.7 MB module, then its ranks), and a cold `list` needs it only at the end, after
 * scanning every skill. `startCounter()` loads it in a worker thread while the scan runs, on the other core; `count`
 * then asks that worker. Without a started worker (or when running from the TypeScript sources, which have no
 * worker file) it counts in this thread, as before. The count is the same either way: the same function counts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/** Beside the bundle (bin/build-cli.mjs builds bin/cli/token-worker.ts into it). */
const WORKER_FILE = path.join(import.meta.dirname, 'token-worker.cjs');

let worker: Worker | null = null;

/** Starts loading the table in a worker (once); a no-op without the bundle's worker file. */
export function startCounter(): void {
  if (worker || !fs.existsSync(WORKER_FILE)) return;
  worker = new Worker(WORKER_FILE);
  // Never what keeps the process alive: a run whose count was kept exits without waiting for the table.
  worker.unref();
  worker.on('error', () => {
    worker = null;
  });
}

export async function count(text: string): Promise<number> {
  const counter = worker;
  if (counter) {
    try {
      return await new Promise<number>((resolve, reject) => {
        counter.ref();
        counter.once('message', resolve);
        counter.once('error', reject);
        counter.postMessage(text);
      });
    } catch {
      // The worker failed: count here.
    } finally {
      void counter.terminate();
      worker = null;
    }
  }
  const { countTokens } = await import('../../server/skills/catalog/catalog');
  return countTokens(text);
}
