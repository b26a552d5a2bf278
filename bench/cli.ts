/**
 * `bin/skills` in fresh processes, as people and scripts call it: the shell wrapper, node and the bundle. p50 of a
 * few runs per command, wall time from spawn to exit.
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

const PROJECT = path.join(import.meta.dirname, '..');
const SKILLS = path.join(PROJECT, 'bin', 'skills');

export interface CliFigures {
  command: string;
  skills: number;
  runs: number;
  p50Ms: number;
  maxMs: number;
}

function timeRun(args: string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(SKILLS, args, { cwd: PROJECT, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      // `validate` exits 1 for an invalid skill; anything else non-zero is a failure of the bench.
      if (code !== 0) return reject(new Error(`skills ${args.join(' ')} exited ${code}: ${err.slice(-500)}`));
      resolve(performance.now() - started);
    });
  });
}

async function sample(command: string, skills: number, args: string[], runs: number): Promise<CliFigures> {
  await timeRun(args); // page cache and the bundle read once, as on any machine that ran it before
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await timeRun(args));
  times.sort((a, b) => a - b);
  return { command, skills, runs, p50Ms: times[Math.floor((runs - 1) / 2)]!, maxMs: times.at(-1)! };
}

/** Builds the bundle from the current sources first, so the figures are for this code. */
export async function benchCli(root: string, size: number, quick: boolean): Promise<CliFigures[]> {
  const build = spawnSync(process.execPath, [path.join(PROJECT, 'bin', 'build-cli.mjs')], { stdio: 'ignore' });
  if (build.status !== 0) throw new Error('bin/build-cli.mjs failed');
  const valid = path.join(PROJECT, 'server', 'skills', 'fixtures', 'validate', 'valid');
  const runs = quick ? 3 : 7;
  return [
    await sample('validate', 1, ['validate', valid], quick ? 5 : 15),
    await sample('list --json', size, ['list', '--json', '--root', root], runs),
    await sample('match', size, ['match', '--root', root, 'merge these PDF files into one report'], runs),
  ];
}
