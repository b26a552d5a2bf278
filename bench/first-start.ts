/**
 * The first start as a new user has it: `git clone` of this checkout's HEAD -> `npm install` -> `npm start` (the
 * build, the skills runtime install and better-sqlite3's binding at the same time, then `next start`) -> the first
 * page (GET / answered).
 * Each step timed, and every warning line printed on the way collected, so the README can explain each one that is
 * left. Minutes long, so `npm run bench` runs it only when asked: `npm run bench -- --only=first-start`.
 *
 * The npm cache is the machine's own (warm after any earlier install here); SKILLCHAT_FIRST_START_NPM_CACHE=<dir>
 * points the install at another one (an empty folder: a cold cache).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort, PROJECT } from './server-start';

export interface FirstStartFigures {
  cloneS: number;
  installS: number;
  /** `npm start` to the first page: the build, the runtime and the SQLite binding together, then `next start`. */
  startS: number;
  /** Inside `npm start`, as it reports them (null when it did not say): the build, the runtime, the binding. */
  parts: { buildS: number | null; runtimeS: number | null; bindingS: number | null };
  totalS: number;
  /** Lines that warn (npm's `npm warn`, Next's `⚠`, anything saying "warn" or "deprecated"), as printed. */
  warnings: string[];
  npmCache: string;
}

const WARNING = /\bwarn(ing)?\b|deprecated|⚠|EBADENGINE/i;

function warningsIn(output: string): string[] {
  return output.split('\n').filter((line) => WARNING.test(line));
}

/** Runs a command to its end; its output is returned (and it must exit 0). */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${output.slice(-2000)}`)),
    );
  });
}

export async function benchFirstStart(workDir: string): Promise<FirstStartFigures> {
  const fresh = path.join(workDir, 'fresh');
  const npmCache = process.env.SKILLCHAT_FIRST_START_NPM_CACHE ?? '(the machine’s)';
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('SKILLCHAT_') || key.startsWith('npm_')) delete env[key];
  if (process.env.SKILLCHAT_FIRST_START_NPM_CACHE) env.npm_config_cache = process.env.SKILLCHAT_FIRST_START_NPM_CACHE;
  const warnings: string[] = [];

  const t0 = performance.now();
  await run('git', ['clone', '--quiet', PROJECT, fresh], workDir, env);
  const t1 = performance.now();
  warnings.push(...warningsIn(await run('npm', ['install'], fresh, env)));
  const t2 = performance.now();

  const port = await freePort();
  const child = spawn('npm', ['start'], {
    cwd: fresh,
    env: { ...env, PORT: String(port), SKILLCHAT_HOME: path.join(workDir, 'home') },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (d) => {
    output += d;
  });
  child.stderr.on('data', (d) => {
    output += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    // The page is served once the build is done; `npm start` starts the server only after the runtime is installed.
    for (;;) {
      const ended = await Promise.race([exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 250))]);
      if (ended !== 'running') throw new Error(`npm start exited ${ended}: ${output.slice(-2000)}`);
      try {
        const response = await fetch(`http://127.0.0.1:${port}/`, { redirect: 'manual' });
        await response.arrayBuffer();
        if (response.status < 500) break;
      } catch {
        // Not listening yet.
      }
    }
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  const t3 = performance.now();
  await exited;
  warnings.push(...warningsIn(output));
  const seconds = (pattern: RegExp) => {
    const m = pattern.exec(output);
    return m ? Number(m[1]) : null;
  };
  return {
    parts: {
      buildS: seconds(/skillchat: built in (\d+) s/),
      runtimeS: seconds(/runtime install done in (\d+) s/),
      bindingS: seconds(/binding built in (\d+) s/),
    },
    cloneS: (t1 - t0) / 1000,
    installS: (t2 - t1) / 1000,
    startS: (t3 - t2) / 1000,
    totalS: (t3 - t0) / 1000,
    warnings,
    npmCache,
  };
}
