/**
 * Per-run cost of the sandbox: the same tiny script run through `runSkillScript`, and the same command line through
 * the shell tool's path (`runCommand`), against starting it bare on the host (no isolation). The difference is what
 * the sandbox costs per run (a slot, namespaces, mounts, seccomp, rlimits, the workspace scans before and after).
 * Then LibreOffice: a chat's first document conversion and later ones (`soffice --headless --convert-to pdf`).
 *
 *   npx tsx bench/sandbox.ts [--quick]     (also part of `npm run bench`)
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sandboxEnv } from '../server/sandbox/bwrap';
import { resolveExecutionConfig } from '../server/sandbox/config';
import type { Interpreter } from '../server/sandbox/interpreter';
import { closeOfficeHosts } from '../server/sandbox/office-host';
import { prepareOffice, runCommand, runSkillScript } from '../server/sandbox/run';
import { createRunCgroup, findRunCgroups } from '../server/sandbox/run-cgroup';
import { bwrapAvailability } from '../server/sandbox/select';

const exec = promisify(execFile);

export interface SandboxFigures {
  interpreter: Interpreter;
  backend: 'host (bare)' | 'bwrap' | 'shell tool';
  runs: number;
  p50: number;
  p99: number;
  /** p50 minus the bare host p50 for the same interpreter. */
  overheadP50: number | null;
  overheadP99: number | null;
}

/** Per-run overhead of bwrap over a bare start, at p50. Namespaces + mounts cost a few ms; 50 ms leaves room. */
export const SANDBOX_TARGET_MS = 50;

export interface OfficeFigures {
  /** Preparing the profile once for this LibreOffice (a fresh runtime folder): the server does it at the first run. */
  prepareMs: number;
  firstMs: number;
  /** A chat's later conversions: median and all of them. */
  laterMs: number;
  later: number[];
  /** CPU time the run of a later conversion spends itself (median): the kept LibreOffice does the work. */
  laterCpuMs: number;
  /** A later conversion with `sandbox.officeHosts` 0: soffice started in each run from the prepared profile. */
  unkeptMs: number;
  /** The same conversion with a fresh profile of its own, as every run had before (median). */
  freshMs: number;
  /** The machine's 1-minute load average while measuring: these figures are CPU-bound. */
  load: number;
}

/** A chat's later LibreOffice conversion at p50 (issue 34: 1.5-1.9 s with a fresh profile each run). */
export const OFFICE_LATER_TARGET_MS = 600;

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
    const bwrapOk = (await bwrapAvailability(100_000)).ok;
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
      if (!bwrapOk) continue;
      const execution = resolveExecutionConfig({ sandbox: { backend: 'bwrap' } }, work, work, {});
      const sandboxed = await time(runs, async () => {
        const r = await runSkillScript(skill, script.file, [], { execution });
        if (r.stdout !== 'hello\n') throw new Error(`bwrap/${interpreter}: ${r.error ?? r.stderr}`);
      });
      figures.push({
        interpreter,
        backend: 'bwrap',
        runs,
        ...sandboxed,
        overheadP50: sandboxed.p50 - bare.p50,
        overheadP99: sandboxed.p99 - bare.p99,
      });
      if (interpreter !== 'bash') continue;
      // The shell tool's path: the same command line, parsed by bash in the sandbox.
      const bareCommand = await time(runs, async () => {
        await exec('/usr/bin/bash', ['-c', 'echo hello'], { env: sandboxEnv(false) as unknown as NodeJS.ProcessEnv });
      });
      const shell = await time(runs, async () => {
        const r = await runCommand('echo hello', { execution });
        if (r.stdout !== 'hello\n') throw new Error(`shell: ${r.error ?? r.stderr}`);
      });
      figures.push({
        interpreter,
        backend: 'shell tool',
        runs,
        ...shell,
        overheadP50: shell.p50 - bareCommand.p50,
        overheadP99: shell.p99 - bareCommand.p99,
      });
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
    .filter((x) => x.backend !== 'host (bare)')
    .map(
      (x) =>
        `- ${x.overheadP50 !== null && x.overheadP50 <= SANDBOX_TARGET_MS ? 'PASS' : 'MISS'} ${x.backend} overhead for ${x.interpreter} at p50 within ${SANDBOX_TARGET_MS} ms: ${f(x.overheadP50)} ms`,
    );
  return [
    '| interpreter | backend | runs | p50 ms | p99 ms | overhead p50 ms | overhead p99 ms |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...verdicts,
  ].join('\n');
}

/** What a run's own cgroup (memory and pids, server/sandbox/run-cgroup.ts) may add to a run at p50. */
export const RUN_CGROUP_TARGET_MS = 10;

export type RunCgroupFigures =
  | {
      runs: number;
      version: 'v1' | 'v2';
      /** `echo hello` through the shell tool's path with a cgroup per run, and with `sandbox.cgroup: off`. */
      withP50: number;
      withoutP50: number;
      /** Making the cgroups, reading them and removing them, alone. */
      cgroupOnlyP50: number;
    }
  | { skipped: string };

/**
 * The per-run cgroup's cost: the same command with and without it, runs alternated so both see the same load, and
 * the cgroup's own steps (make, move a process in, remove) timed alone.
 */
export async function benchRunCgroup(options: { quick?: boolean } = {}): Promise<RunCgroupFigures> {
  const runs = options.quick ? 10 : 30;
  if (!(await bwrapAvailability(100_000)).ok) return { skipped: 'bubblewrap cannot run here' };
  const support = await findRunCgroups('auto');
  if (!support.ok) return { skipped: `no cgroup per run here (${support.reason})` };
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-bench-cgroup-'));
  try {
    const config = (cgroup: string) =>
      resolveExecutionConfig({ sandbox: { backend: 'bwrap', cgroup } }, work, work, {});
    const withCgroup = config('auto');
    const without = config('off');
    const once = async (execution: typeof withCgroup) => {
      const started = performance.now();
      const r = await runCommand('echo hello', { execution });
      if (r.stdout !== 'hello\n') throw new Error(`cgroup bench: ${r.error ?? r.stderr}`);
      return performance.now() - started;
    };
    await once(withCgroup);
    await once(without);
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < runs; i++) {
      a.push(await once(withCgroup));
      b.push(await once(without));
    }
    // The cgroup's own steps, without a process in it: make (limits set), read the peak and OOM count, remove.
    const alone: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      const cgroup = await createRunCgroup(support, { memoryMb: 2048, maxProcesses: 64 });
      await Promise.all([cgroup.peakBytes(), cgroup.oomKilled()]);
      await cgroup.remove();
      alone.push(performance.now() - started);
    }
    const p50 = (xs: number[]) =>
      quantile(
        [...xs].sort((x, y) => x - y),
        0.5,
      );
    return {
      runs,
      version: support.version,
      withP50: p50(a),
      withoutP50: p50(b),
      cgroupOnlyP50: p50(alone),
    };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

export function runCgroupTable(figures: RunCgroupFigures): string {
  if ('skipped' in figures) return `- INFO per-run cgroup: not measured (${figures.skipped})`;
  const overhead = figures.withP50 - figures.withoutP50;
  const verdict = overhead <= RUN_CGROUP_TARGET_MS ? 'PASS' : 'MISS';
  return [
    `- ${verdict} per-run cgroup (${figures.version}) adds at most ${RUN_CGROUP_TARGET_MS} ms to a run at p50: ${overhead.toFixed(1)} ms (echo through the shell tool, ${figures.runs} runs each: ${figures.withP50.toFixed(1)} ms with, ${figures.withoutP50.toFixed(1)} ms with sandbox.cgroup off)`,
    `- INFO the cgroup's own steps alone (make the memory and pids cgroups with their limits, read the peak and the OOM count, remove them) at p50: ${figures.cgroupOnlyP50.toFixed(1)} ms`,
  ].join('\n');
}

/**
 * LibreOffice in a chat (`soffice --headless --convert-to pdf` of a one-page .docx): preparing its profile once (a
 * fresh runtime folder here), the chat's first conversion (soffice in the run, which also starts the chat's kept
 * LibreOffice, office-host.ts) and its later ones (asked of that LibreOffice), and, to compare, later ones with no
 * kept LibreOffice (`sandbox.officeHosts` 0: soffice in each run from the prepared profile) and with a fresh profile
 * of each run's own, as every run had before either. Null without soffice, pandoc or bwrap.
 */
export async function benchOffice(options: { quick?: boolean } = {}): Promise<OfficeFigures | null> {
  if (!fs.existsSync('/usr/bin/soffice') || !fs.existsSync('/usr/bin/pandoc')) return null;
  if (!(await bwrapAvailability(100_000)).ok) return null;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-bench-office-'));
  try {
    const execution = resolveExecutionConfig({ sandbox: { backend: 'bwrap' } }, work, work, {});
    const started = performance.now();
    if (!(await prepareOffice(execution))) throw new Error('the LibreOffice profile could not be prepared');
    const prepareMs = Math.round(performance.now() - started);
    const unkept = { ...execution, sandbox: { ...execution.sandbox, officeHosts: 0 } };
    // Wall time is the figure; CPU time (user + sys of what the run started) says what a run itself spends.
    const cpu: number[] = [];
    const convert = async (chatId: string, config = execution, profile = '') => {
      const command = `TIMEFORMAT='cpu %3U %3S'; time soffice ${profile}--headless --convert-to pdf in.docx`;
      const r = await runCommand(command, { execution: config, chatId });
      if (r.exitCode !== 0) throw new Error(`soffice: ${r.error ?? r.stderr}`);
      const [, user, sys] = /cpu ([\d.]+) ([\d.]+)/.exec(r.stderr) ?? [];
      if (config === execution && !profile) cpu.push(Math.round((Number(user) + Number(sys)) * 1000));
      return r.durationMs;
    };
    for (const chatId of ['office', 'office-unkept']) {
      const make = await runCommand("printf '# Report\\n\\nHello.\\n' | pandoc -o in.docx", { execution, chatId });
      if (make.exitCode !== 0) throw new Error(`pandoc: ${make.stderr}`);
    }
    const firstMs = await convert('office');
    const later: number[] = [];
    for (let i = 0; i < (options.quick ? 5 : 9); i++) later.push(await convert('office'));
    const unkeptLater: number[] = [];
    for (let i = 0; i < (options.quick ? 3 : 5); i++) unkeptLater.push(await convert('office-unkept', unkept));
    const fresh: number[] = [];
    for (let i = 0; i < 3; i++) {
      fresh.push(await convert('office-unkept', unkept, '-env:UserInstallation=file:///tmp/fresh-profile '));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
    const load = os.loadavg()[0] ?? 0;
    return {
      prepareMs,
      firstMs,
      laterMs: median(later),
      later,
      laterCpuMs: median(cpu.slice(1)),
      unkeptMs: median(unkeptLater),
      freshMs: median(fresh),
      load,
    };
  } finally {
    await closeOfficeHosts();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

export function officeTable(figures: OfficeFigures | null): string {
  if (!figures) return '- INFO LibreOffice conversion: not measured (no soffice, pandoc or bwrap here)';
  const pass = figures.laterMs <= OFFICE_LATER_TARGET_MS ? 'PASS' : 'MISS';
  return [
    `- INFO LibreOffice's profile prepared once for this version (the first run after a start or an upgrade): ${figures.prepareMs} ms`,
    `- INFO a chat's first docx -> pdf in the sandbox (soffice in the run; starts the chat's kept LibreOffice): ${figures.firstMs} ms`,
    `- ${pass} a chat's later docx -> pdf at p50 within ${OFFICE_LATER_TARGET_MS} ms (its kept LibreOffice): ${figures.laterMs} ms (all: ${figures.later.join(', ')})`,
    `- INFO CPU time (user + sys) a later conversion's run spends itself, p50: ${figures.laterCpuMs} ms`,
    `- INFO a later conversion with no kept LibreOffice (sandbox.officeHosts 0: soffice per run, prepared profile), p50: ${figures.unkeptMs} ms`,
    `- INFO the same with a fresh profile per run, as before either (median of 3): ${figures.freshMs} ms`,
    `- INFO load average while measuring: ${figures.load.toFixed(1)} on ${os.cpus().length} cores`,
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const quick = process.argv.includes('--quick');
  (async () =>
    [await benchSandbox({ quick }), await benchRunCgroup({ quick }), await benchOffice({ quick })] as const)().then(
    ([figures, cgroup, office]) => {
      console.log(sandboxTable(figures));
      console.log(runCgroupTable(cgroup));
      console.log(officeTable(office));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
