/**
 * `npm start`: builds the app when there is no build or the sources are newer than it, installs the skills runtime
 * the first time (`bin/skills runtime install`: the document toolchain, Python and Node packages, the seccomp
 * filter) and builds better-sqlite3's native binding when it is missing (bin/sqlite-binding.mjs: `npm install` leaves
 * it, so that compiling SQLite overlaps the build instead of coming before it), all three at the same time, so the
 * first start waits for the longest, not the sum; then runs `next start` on the configured address (127.0.0.1:3000
 * by default: binding elsewhere is an explicit setting, SKILLCHAT_HOST). SKILLCHAT_RUNTIME_INSTALL=0 skips the
 * runtime (scripts and the shell then say what is missing). Each runs under `supervise`: Ctrl-C or SIGTERM stops them
 * and everything they started, and nothing is left behind.
 *
 * The first build takes minutes on a small machine, most of it silent: a line every few seconds says it is still
 * going and which step Next is on. Set for it (read by next.config.ts): no Next type check
 * (SKILLCHAT_BUILD_SKIP_TYPECHECK: `npm test` type-checks the sources, and a person starting the app has nothing to
 * fix there), and no Turbopack build cache (SKILLCHAT_BUILD_CACHE=0: it costs a first build CPU and disk, and pays
 * off only on a rebuild, which a start does only after an update).
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../server/config';
import { refuseInvalidConfig } from '../server/config-check';
import { buildExposurePolicy } from '../server/security/exposure';
import { needsBuild as buildIsStale } from './build-state';
import { supervise } from './supervise';

const appDir = path.resolve(import.meta.dirname, '..');
const nextBin = path.join(appDir, 'node_modules', '.bin', 'next');
const BWRAP = '/usr/bin/bwrap';

let config!: ReturnType<typeof loadConfig>;
refuseInvalidConfig(() => {
  config = loadConfig({ appDir });
});

/** `next build` with its output passed through, and a progress line whenever it has been quiet for a while. */
function build(): Promise<number> {
  const started = Date.now();
  let step = 'starting';
  let lastOutput = Date.now();
  const pass = (chunk: Buffer, target: NodeJS.WriteStream) => {
    target.write(chunk);
    lastOutput = Date.now();
    // Next's step lines ("Creating an optimized production build ...", "Collecting page data ...").
    const lines = chunk
      .toString()
      .split('\n')
      .map((l) => l.replace(/^[\s▲✓○ƒ⚠]+/u, '').trim());
    const latest = lines.filter((l) => /^[A-Z][a-z]+ .*\.\.\.$|^Compiled|^Generating/.test(l)).at(-1);
    if (latest) step = latest.replace(/\s*\.\.\.$/, '');
  };
  const ticker = setInterval(() => {
    if (Date.now() - lastOutput < 9000) return;
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(`skillchat: still building, ${seconds} s so far (${step})…`);
    lastOutput = Date.now();
  }, 1000);
  const env = {
    ...process.env,
    NEXT_TELEMETRY_DISABLED: '1',
    SKILLCHAT_BUILD_SKIP_TYPECHECK: '1',
    SKILLCHAT_BUILD_CACHE: '0',
  };
  return supervise(nextBin, ['build'], { cwd: appDir, env, onOutput: pass })
    .finally(() => clearInterval(ticker))
    .then((code) => {
      if (code === 0) console.log(`skillchat: built in ${Math.round((Date.now() - started) / 1000)} s`);
      return code;
    });
}

/**
 * The first start installs the runtime, and so does a start on a machine without bubblewrap (no code could run);
 * later starts leave it to `bin/skills runtime install`, run by hand.
 */
function needsRuntime(): boolean {
  if (process.env.SKILLCHAT_RUNTIME_INSTALL === '0') return false;
  return !fs.existsSync(path.join(config.execution.runtime.dir, 'install.json')) || !fs.existsSync(BWRAP);
}

function installRuntime(): Promise<number> {
  console.log('skillchat: installing the skills runtime (document toolchain, Python and Node packages) meanwhile…');
  const prefix = (chunk: Buffer, target: NodeJS.WriteStream) => {
    const lines = chunk.toString().split('\n').filter(Boolean);
    target.write(lines.map((l) => `skillchat runtime: ${l}\n`).join(''));
  };
  const started = Date.now();
  return supervise(path.join(appDir, 'bin', 'skills'), ['runtime', 'install'], { cwd: appDir, onOutput: prefix }).then(
    (code) => {
      console.log(`skillchat: runtime install done in ${Math.round((Date.now() - started) / 1000)} s`);
      return code;
    },
  );
}

/** better-sqlite3's binding, built if missing (its lines prefixed); `next start` loads it with the first request. */
function sqliteBinding(): Promise<number> {
  const prefix = (chunk: Buffer, target: NodeJS.WriteStream) => {
    const lines = chunk.toString().split('\n').filter(Boolean);
    target.write(lines.map((l) => `skillchat: ${l}\n`).join(''));
  };
  return supervise(process.execPath, [path.join(appDir, 'bin', 'sqlite-binding.mjs')], {
    cwd: appDir,
    onOutput: prefix,
  });
}

if (buildIsStale(appDir)) {
  console.log('skillchat: building (first start or sources changed); this takes a few minutes the first time…');
}
const [built, runtime, sqlite] = await Promise.all([
  buildIsStale(appDir) ? build() : 0,
  needsRuntime() ? installRuntime() : 0,
  sqliteBinding(),
]);
if (built !== 0) process.exit(built);
if (sqlite !== 0) process.exit(sqlite);
// A runtime that could not be installed is not fatal: the chat works, and scripts say what they miss.
if (runtime !== 0) console.warn(`skillchat: the runtime install ended with status ${runtime}; see its lines above`);
if (process.platform === 'linux' && !fs.existsSync(BWRAP)) {
  const sudo = process.getuid?.() === 0 ? '' : 'sudo ';
  console.warn(
    `skillchat: bubblewrap is missing, so no script or command will run; run: ${sudo}apt-get install -y bubblewrap`,
  );
}

const { host, port } = config.server;
const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
// The server decides exposure again from the address Next reports; predicting it here with the same rules says
// whether people will need to sign in.
const childEnv: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', SKILLCHAT_HOST: host };
const access = buildExposurePolicy({
  env: { ...childEnv, __NEXT_PRIVATE_ORIGIN: url },
  allowedHosts: config.server.allowedHosts,
});
console.log(`skillchat: ${url}`);
if (access.exposed) {
  console.log(`skillchat: reachable from the network (${access.exposure}): people sign in with accounts.`);
}
process.exit(await supervise(nextBin, ['start', '-H', host, '-p', String(port)], { cwd: appDir, env: childEnv }));
