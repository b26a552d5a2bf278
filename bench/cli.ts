/**
 * `bin/skills` in fresh processes, as people and scripts call it: the shell wrapper, node and the bundle. p50 of a
 * few runs per command, wall time from spawn to exit. And a cold `list --json` against pi's skills loader over the
 * same folders (a pi-mono checkout named by SKILLCHAT_PI_SKILLS, run in-process by bench/pi-child.ts), the two
 * alternating.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const PROJECT = path.join(import.meta.dirname, '..');
const SKILLS = path.join(PROJECT, 'bin', 'skills');

export interface CliFigures {
  command: string;
  skills: number;
  runs: number;
  p50Ms: number;
  /** CPU time (user + system) of the run, p50; NaN without /usr/bin/time. */
  cpuP50Ms: number;
  maxMs: number;
}

// GNU time reports the child's CPU time (user + system), which a loaded machine does not inflate the way it does
// wall time; without it only wall time is reported.
const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
const CPU_MARK = 'skills-bench-cpu';

function timeRun(args: string[], env: NodeJS.ProcessEnv, program = SKILLS): Promise<{ wall: number; cpu: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const [file, argv] = TIME ? [TIME, ['-f', `${CPU_MARK} %U %S`, program, ...args]] : [program, args];
    const child = spawn(file, argv, { cwd: PROJECT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      // `validate` exits 1 for an invalid skill; anything else non-zero is a failure of the bench.
      if (code !== 0) return reject(new Error(`skills ${args.join(' ')} exited ${code}: ${err.slice(-500)}`));
      const cpu = err.match(new RegExp(`${CPU_MARK} ([\\d.]+) ([\\d.]+)`));
      resolve({ wall: performance.now() - started, cpu: cpu ? 1000 * (Number(cpu[1]) + Number(cpu[2])) : Number.NaN });
    });
  });
}

/** One SKILL.md changed before each run: its body (name and description as they were), or its description. */
interface Edit {
  file: string;
  part: 'body' | 'description';
  label: string;
}

let edits = 0;

function editSkill({ file, part }: Edit): void {
  edits++;
  if (part === 'body') {
    fs.appendFileSync(file, `\nEdit ${edits}.\n`);
    return;
  }
  const text = fs.readFileSync(file, 'utf8');
  const edited = text.replace(/^description: "(Edit \d+\. )?/m, `description: "Edit ${edits}. `);
  if (edited === text) throw new Error(`${file}: no double-quoted description to edit`);
  fs.writeFileSync(file, edited);
}

/**
 * `cold`: the caches (the scan cache, bin/cli/cache/scan-cache-file.ts, and the kept answers, bin/cli/cache/answer-cache.ts)
 * are removed before each run, so every SKILL.md is parsed; an Edit: one SKILL.md is changed before each run, so
 * the kept answer is stale and the scan cache answers the other skills; otherwise the runs after the first reuse
 * both, as every call after the first on a machine where nothing changed does.
 */
async function sample(
  command: string,
  skills: number,
  args: string[],
  runs: number,
  cacheDir: string,
  mode: 'warm' | 'cold' | Edit = 'warm',
  program = SKILLS,
): Promise<CliFigures> {
  const cold = mode === 'cold';
  const env: NodeJS.ProcessEnv = { ...process.env, SKILLCHAT_CACHE_DIR: cacheDir };
  // The bare `node` row starts as bin/skills starts node for the measured commands: without NODE_EXTRA_CA_CERTS.
  if (program === process.execPath) delete env.NODE_EXTRA_CA_CERTS;
  fs.rmSync(cacheDir, { recursive: true, force: true });
  await timeRun(args, env, program); // page cache and the bundle read once, as on any machine that ran it before
  const times: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (cold) fs.rmSync(cacheDir, { recursive: true, force: true });
    if (typeof mode === 'object') editSkill(mode);
    const { wall, cpu } = await timeRun(args, env, program);
    times.push(wall);
    cpus.push(cpu);
  }
  cpus.sort((a, b) => a - b);
  times.sort((a, b) => a - b);
  return {
    command: cold ? `${command} (cold cache)` : typeof mode === 'object' ? `${command} (${mode.label})` : command,
    skills,
    runs,
    p50Ms: times[Math.floor((runs - 1) / 2)]!,
    cpuP50Ms: cpus[Math.floor((runs - 1) / 2)]!,
    maxMs: times.at(-1)!,
  };
}

/** Builds the bundle from the current sources first, so the figures are for this code. */
export async function benchCli(root: string, size: number, quick: boolean, workDir: string): Promise<CliFigures[]> {
  const build = spawnSync(process.execPath, [path.join(PROJECT, 'bin', 'build-cli.mjs')], { stdio: 'ignore' });
  if (build.status !== 0) throw new Error('bin/build-cli.mjs failed');
  const valid = path.join(PROJECT, 'server', 'skills', 'fixtures', 'validate', 'valid');
  const runs = quick ? 3 : 7;
  const cache = path.join(workDir, 'cli-cache');
  const list = ['list', '--json', '--root', root];
  const match = ['match', '--root', root, 'merge these PDF files into one report'];
  // A skill file in the root, edited in its body (an author revising instructions) or its description (an author
  // tuning when it triggers: the one edit that changes what `match` answers from).
  const first = fs.readdirSync(root, { withFileTypes: true }).find((e) => e.isDirectory());
  const file = path.join(root, first!.name, 'SKILL.md');
  const body: Edit = { file, part: 'body', label: '1 skill body edited' };
  const description: Edit = { file, part: 'description', label: '1 skill description edited' };
  return [
    // What any command pays before it runs: node itself, in the same conditions (no target: context for the rest).
    await sample('(node -e 0)', 0, ['-e', '0'], quick ? 5 : 15, cache, 'warm', process.execPath),
    await sample('validate', 1, ['validate', valid], quick ? 5 : 15, cache),
    await sample('list --json', size, list, runs, cache),
    await sample('match', size, match, runs, cache),
    await sample('list --json', size, list, quick ? 2 : 3, cache, body),
    await sample('match', size, match, quick ? 2 : 3, cache, body),
    await sample('match', size, match, quick ? 2 : 3, cache, description),
    await sample('list --json', size, list, quick ? 2 : 3, cache, 'cold'),
    await sample('match', size, match, quick ? 2 : 3, cache, 'cold'),
  ];
}

export interface VersusPi {
  skills: number;
  pairs: number;
  /** A cold `skills list --json`, spawn to exit, p50. */
  cliP50Ms: number;
  /** pi's loadSkillsFromDir over the same root, in-process (the call alone), p50. */
  piP50Ms: number;
  /** Median of each pair's cli / pi: the machine's load changes less within a pair than across the run. */
  ratio: number;
}

const PI_CHILD = path.join(import.meta.dirname, 'pi-child.ts');

function piLoad(root: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', PI_CHILD, root], {
      cwd: PROJECT,
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
      if (code !== 0) return reject(new Error(`pi-child exited ${code}: ${err.slice(-500)}`));
      resolve((JSON.parse(out.trim().split('\n').at(-1)!) as { loadMs: number }).loadMs);
    });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * A cold `list --json` (no caches: every SKILL.md parsed, the catalog's tokens counted, the caches written) against
 * pi's loader in-process, alternating, after one untimed run of each (page cache). Null when no pi checkout is named
 * (SKILLCHAT_PI_SKILLS: pi is not vendored, its code stays in its own repository) or its one dependency, `ignore`,
 * is not installed.
 */
export async function benchCliVersusPi(
  root: string,
  size: number,
  pairs: number,
  workDir: string,
): Promise<VersusPi | null> {
  if (!process.env.SKILLCHAT_PI_SKILLS || !fs.existsSync(process.env.SKILLCHAT_PI_SKILLS)) return null;
  try {
    await import('ignore');
  } catch {
    return null;
  }
  const cacheDir = path.join(workDir, 'cli-cache-vs-pi');
  const env: NodeJS.ProcessEnv = { ...process.env, SKILLCHAT_CACHE_DIR: cacheDir };
  const list = ['list', '--json', '--root', root];
  fs.rmSync(cacheDir, { recursive: true, force: true });
  await timeRun(list, env);
  await piLoad(root);
  const cli: number[] = [];
  const pi: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < pairs; i++) {
    fs.rmSync(cacheDir, { recursive: true, force: true });
    // Which goes first alternates too, so neither always runs right after the other's writes.
    let c: number;
    let p: number;
    if (i % 2 === 0) {
      c = (await timeRun(list, env)).wall;
      p = await piLoad(root);
    } else {
      p = await piLoad(root);
      c = (await timeRun(list, env)).wall;
    }
    cli.push(c);
    pi.push(p);
    ratios.push(c / p);
  }
  return { skills: size, pairs, cliP50Ms: median(cli), piP50Ms: median(pi), ratio: median(ratios) };
}
