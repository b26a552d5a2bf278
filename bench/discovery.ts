/** Discovery figures: each size scanned in a fresh `tsx` process (bench/discovery-child.ts). */
import { spawn } from 'node:child_process';
import path from 'node:path';

export interface DiscoveryFigures {
  skills: number;
  diagnostics: number;
  /** Process start to exit, including Node, tsx and module loading. */
  processMs: number;
  importMs: number;
  coldMs: number;
  fullUnchangedMs: number;
  watchUnchangedMs: number;
  fullOneChangedMs: number;
  watchOneChangedMs: number;
  maxRssMB: number;
  heapAfterColdMB: number;
  rounds: number;
}

const CHILD = path.join(import.meta.dirname, 'discovery-child.ts');

export function benchDiscovery(root: string, rounds: number): Promise<DiscoveryFigures> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD, root, String(rounds)], {
      cwd: path.join(import.meta.dirname, '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const processMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`discovery child failed (${code}): ${err.slice(-2000)}`));
      const line = out.trim().split('\n').at(-1) ?? '';
      resolve({ ...(JSON.parse(line) as Omit<DiscoveryFigures, 'processMs'>), processMs });
    });
  });
}
