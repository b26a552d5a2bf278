/** bin/sqlite-binding.mjs on a stand-in package whose install script copies the real binding after a pause. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const appDir = path.resolve(import.meta.dirname, '..');
const realBinding = path.join(appDir, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
let dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

/** An app folder with the script and a better-sqlite3 whose `install` runs `script` (`runs` counts the runs). */
function standIn(script: string): { dir: string; packageDir: string; runs: () => number } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqlite-binding-'));
  dirs.push(dir);
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.copyFileSync(path.join(appDir, 'bin', 'sqlite-binding.mjs'), path.join(dir, 'bin', 'sqlite-binding.mjs'));
  const packageDir = path.join(dir, 'node_modules', 'better-sqlite3');
  fs.mkdirSync(packageDir, { recursive: true });
  const install = `echo run >> runs && ${script}`;
  fs.writeFileSync(path.join(packageDir, 'package.json'), JSON.stringify({ name: 'x', scripts: { install } }));
  const runs = () => fs.readFileSync(path.join(packageDir, 'runs'), 'utf8').split('\n').filter(Boolean).length;
  return { dir, packageDir, runs };
}

const copyBinding = `sleep 1 && mkdir -p build/Release && cp ${realBinding} build/Release/better_sqlite3.node`;

function run(dir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(dir, 'bin', 'sqlite-binding.mjs')], { cwd: dir });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('sqlite-binding', () => {
  it('builds once when two ask at the same time: the second waits for the first, and both find it loading', async () => {
    const { dir, packageDir, runs } = standIn(copyBinding);
    const [a, b] = await Promise.all([run(dir), run(dir)]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(runs()).toBe(1);
    expect(`${a.output}${b.output}`).toMatch(/waiting for the build of its binding/);
    expect(fs.existsSync(path.join(packageDir, '.building'))).toBe(false);
    // Built: the next call only loads it.
    expect((await run(dir)).output).toBe('');
  });

  it('takes over a lock whose holder is gone', async () => {
    const { dir, packageDir, runs } = standIn(copyBinding);
    fs.mkdirSync(path.join(packageDir, '.building'));
    fs.writeFileSync(path.join(packageDir, '.building', 'pid'), '999999999');
    expect((await run(dir)).code).toBe(0);
    expect(runs()).toBe(1);
  });

  it('shows the build output and fails when the build fails, and leaves no lock', async () => {
    const { dir, packageDir } = standIn('echo cc: no such compiler >&2 && exit 3');
    const { code, output } = await run(dir);
    expect(code).not.toBe(0);
    expect(output).toMatch(/cc: no such compiler/);
    expect(output).toMatch(/building the binding failed/);
    expect(fs.existsSync(path.join(packageDir, '.building'))).toBe(false);
  });
});
