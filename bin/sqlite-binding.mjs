#!/usr/bin/env node
/**
 * Makes sure better-sqlite3's native binding is there and loads, building it when it is not: the first `npm start`
 * (bin/start.ts, at the same time as the build and the runtime install), `npm test` and `npm run dev` (their pre
 * scripts), the tests' global setup and the image run this. Plain JavaScript: it needs nothing installed.
 *
 * Why not at `npm install`: on a machine that cannot download better-sqlite3's prebuilt binary (no access to GitHub)
 * its install script compiles SQLite, which takes a while, and `npm install && npm start` would wait for it
 * before the build could start. `next build` does not load the binding (better-sqlite3 loads it in its constructor),
 * so package.json denies better-sqlite3's install script (`allowScripts`, npm 11; an older npm runs it and this finds
 * the binding in place) and this runs the same script (`prebuild-install || node-gyp rebuild --release`, through
 * `npm run install` in the package's folder, so npm's configuration applies) while the build runs.
 *
 * Never a half-built binding: one builder at a time holds a lock (a folder with its pid; a dead holder's lock is
 * taken over), the others wait for it, and node-gyp puts the finished file in place with one link. The binding
 * counts as there when it loads in this process, so one built for another Node version is built again.
 * The build's output (compiler warnings, prebuild-install's failed download) is shown only when it fails.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const appDir = path.resolve(import.meta.dirname, '..');
const packageDir = path.join(appDir, 'node_modules', 'better-sqlite3');
const binding = path.join(packageDir, 'build', 'Release', 'better_sqlite3.node');
const lock = path.join(packageDir, '.building');

function loads() {
  try {
    createRequire(import.meta.url)(binding);
    return true;
  } catch {
    return false;
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** true when this process now holds the lock; false when a live builder holds it. */
function takeLock() {
  try {
    fs.mkdirSync(lock);
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
    const holder = Number(readPid() || Number.NaN);
    // A lock without a pid is being taken right now (or its taker died at once: after a few seconds it is stale);
    // one whose holder is gone was left by an interrupted build.
    const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    if (Number.isNaN(holder) ? age < 5000 : alive(holder)) return false;
    fs.rmSync(lock, { recursive: true, force: true });
    return takeLock();
  }
  fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
  return true;
}

function releaseLock() {
  fs.rmSync(lock, { recursive: true, force: true });
}

function readPid() {
  try {
    return fs.readFileSync(path.join(lock, 'pid'), 'utf8').trim();
  } catch {
    return '';
  }
}

/** `npm run install` in the package's folder; its output is returned, to be shown if it fails. */
function build() {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', 'install'], { cwd: packageDir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('error', (error) => resolve({ code: 1, output: `${output}\n${error.message}` }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

export async function ensureSqliteBinding(log = (line) => console.log(line)) {
  if (!fs.existsSync(packageDir)) {
    log('better-sqlite3 is not installed: run `npm install` first');
    return 1;
  }
  let waiting = false;
  for (;;) {
    if (!fs.existsSync(lock) && loads()) return 0;
    if (takeLock()) break;
    if (!waiting) log(`better-sqlite3: waiting for the build of its binding (process ${readPid()})…`);
    waiting = true;
    await new Promise((r) => setTimeout(r, 500));
  }
  // Ctrl-C, or a supervisor stopping this: the lock goes with us (a kill -9 leaves it to the next one's pid check).
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      releaseLock();
      process.exit(128 + os.constants.signals[signal]);
    });
  }
  try {
    if (loads()) return 0;
    const started = Date.now();
    log('better-sqlite3: building its native binding (compiling SQLite when no prebuilt binary can be downloaded)…');
    const { code, output } = await build();
    if (code !== 0 || !loads()) {
      log(output.trimEnd());
      log(`better-sqlite3: building the binding failed (status ${code}); the lines above say why`);
      return code || 1;
    }
    log(`better-sqlite3: binding built in ${Math.round((Date.now() - started) / 1000)} s`);
    return 0;
  } finally {
    releaseLock();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  process.exitCode = await ensureSqliteBinding();
}
