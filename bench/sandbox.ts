/**
 * Per-run cost of the script sandbox: the same tiny script run through `runSkillScript` on each backend, against
 * starting the same interpreter bare on the host (no isolation). The difference is what the sandbox costs per run
 * (namespaces, mounts, rlimits, the workspace scans before and after).
 *
 *   npx tsx bench/sandbox.ts [--quick]     (also part of `npm run bench`)
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sandboxEnv } from '../server/sandbox/bwrap';
import { resolveScriptsConfig } from '../server/sandbox/config';
import type { Interpreter } from '../server/sandbox/interpreter';
import { bwrapAvailability } from '../server/sandbox/select';
import { runSkillScript } from '../server/scripts/run';

const exec = promisify(execFile);

export interface SandboxFigures {
  interpreter: Interpreter;
  backend: 'host (bare)' | 'bwrap' | 'just-bash';
  runs: number;
  p50: number;
  p99: number;
  /** p50 minus the bare host p50 for the same interpreter. */
  overheadP50: number | null;
  overheadP99: number | null;
}

/** Per-run overhead of bwrap over a bare start, at p50. Namespaces + mounts cost a few ms; 50 ms leaves room. */
export const SANDBOX_TARGET_MS = 50;

const SCRIPTS: Record<'python3' | 'node' | 'bash', { file: string; source: string; host: string }> = {
  python3: { file: 'hello.py', source: 'print("hello")\n', host: '/usr/bin/python3' },
  node: { file: 'hello.js', source: 'console.log("hello")\n', host: '/usr/bin/node' },
  bash: { file: 'hello.sh', source: 'echo hello\n', host: '/usr/bin/bash' },
};

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function time(runs: number, once: () => Promise<void>): Promise<{ p50: number; p99: number }> {
  await once(); // warm the page cache and the probe
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await once();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99) };
}

export async function benchSandbox(options: { quick?: boolean } = {}): Promise<SandboxFigures[]> {
  const runs = options.quick ? 10 : 30;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-bench-sandbox-'));
  const skill = { name: 'bench', dir: path.join(work, 'skill') };
  fs.mkdirSync(skill.dir);
  for (const s of Object.values(SCRIPTS)) fs.writeFileSync(path.join(skill.dir, s.file), s.source);
  const figures: SandboxFigures[] = [];
  try {
    const bwrapOk = (await bwrapAvailability(65534)).ok;
    for (const [interpreter, script] of Object.entries(SCRIPTS) as Array<
      [keyof typeof SCRIPTS, (typeof SCRIPTS)[keyof typeof SCRIPTS]]
    >) {
      // The environment the sandbox gives its scripts: with this process's own, a bare `node` reads
      // NODE_EXTRA_CA_CERTS's bundle at start where it is set (~50 ms here), and the sandbox looked faster than bare.
      const bare = await time(runs, async () => {
        await exec(script.host, [path.join(skill.dir, script.file)], {
          env: sandboxEnv(false) as unknown as NodeJS.ProcessEnv,
        });
      });
      figures.push({ interpreter, backend: 'host (bare)', runs, ...bare, overheadP50: null, overheadP99: null });
      const backends: Array<'bwrap' | 'just-bash'> = bwrapOk ? ['bwrap', 'just-bash'] : ['just-bash'];
      for (const backend of backends) {
        if (backend === 'just-bash' && interpreter === 'node') continue; // just-bash has no Node
        const scripts = resolveScriptsConfig({ sandbox: { backend } }, work, work, {});
        const sandboxed = await time(backend === 'just-bash' ? Math.min(runs, 10) : runs, async () => {
          const r = await runSkillScript(skill, script.file, [], { scripts });
          if (r.stdout !== 'hello\n') throw new Error(`${backend}/${interpreter}: ${r.error ?? r.stderr}`);
        });
        figures.push({
          interpreter,
          backend,
          runs: backend === 'just-bash' ? Math.min(runs, 10) : runs,
          ...sandboxed,
          overheadP50: sandboxed.p50 - bare.p50,
          overheadP99: sandboxed.p99 - bare.p99,
        });
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return figures;
}

export function sandboxTable(figures: SandboxFigures[]): string {
  const f = (n: number | null) => (n === null || !Number.isFinite(n) ? '-' : n.toFixed(1));
  const rows = figures.map(
    (x) =>
      `| ${x.interpreter} | ${x.backend} | ${x.runs} | ${f(x.p50)} | ${f(x.p99)} | ${f(x.overheadP50)} | ${f(x.overheadP99)} |`,
  );
  const verdicts = figures
    .filter((x) => x.backend === 'bwrap')
    .map(
      (x) =>
        `- ${x.overheadP50 !== null && x.overheadP50 <= SANDBOX_TARGET_MS ? 'PASS' : 'MISS'} bwrap overhead for ${x.interpreter} at p50 within ${SANDBOX_TARGET_MS} ms: ${f(x.overheadP50)} ms`,
    );
  return [
    '| interpreter | backend | runs | p50 ms | p99 ms | overhead p50 ms | overhead p99 ms |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...verdicts,
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  benchSandbox({ quick: process.argv.includes('--quick') }).then(
    (figures) => {
      console.log(sandboxTable(figures));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
