/**
 * A throwaway PostgreSQL server for tests: `initdb` in a temp folder, started on a free loopback port with its
 * socket in that folder, removed at the end. Nothing touches the machine's own clusters or `/var/run/postgresql`.
 *
 * initdb refuses to run as root, so as root the cluster belongs to the `postgres` OS user (Debian's package creates
 * it) and every server command goes through `runuser -u postgres --`. Authentication is `trust`: the server
 * listens on 127.0.0.1 only, for the few seconds a test run lasts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface ScratchPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/skillchat_test` */
  url: string;
  /** Server binaries used (for messages). */
  binDir: string;
  stop(): void;
}

/** `PG_BIN`, else the newest `/usr/lib/postgresql/N/bin` (Debian's layout) holding `initdb`; null when absent. */
export function findPostgresBinaries(
  env: Readonly<Record<string, string | undefined>> = process.env,
  debianRoot = '/usr/lib/postgresql',
): string | null {
  const candidates: string[] = [];
  if (env.PG_BIN) candidates.push(env.PG_BIN);
  if (fs.existsSync(debianRoot)) {
    const versions = fs
      .readdirSync(debianRoot)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) candidates.push(path.join(debianRoot, v, 'bin'));
  }
  return (
    candidates.find((dir) => fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_ctl'))) ?? null
  );
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a server binary as the cluster's owner; throws with the tool's own output on failure. */
function runAs(bin: string, args: string[]): void {
  const [command, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  const result = spawnSync(command, argv, { encoding: 'utf8' });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() || String(result.error ?? '');
    throw new Error(`${path.basename(bin)} failed (exit ${result.status}): ${output}`);
  }
}

/**
 * Creates, starts and returns a scratch cluster with an empty `skillchat_test` database, or null when the
 * PostgreSQL server binaries are not installed. Any other failure throws: a broken setup must not pass as "skipped".
 */
export async function startScratchPostgres(): Promise<ScratchPostgres | null> {
  const binDir = findPostgresBinaries();
  if (!binDir) return null;

  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-pg-'));
  const dataDir = path.join(root, 'data');
  const socketDir = path.join(root, 'socket');
  fs.mkdirSync(socketDir);
  if (isRoot) execFileSync('chown', ['-R', 'postgres:', root]);
  const pgCtl = path.join(binDir, 'pg_ctl');
  let started = false;
  const stop = () => {
    if (started) {
      try {
        runAs(pgCtl, ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // Already gone; removing the folder is what matters.
      }
      started = false;
    }
    fs.rmSync(root, { recursive: true, force: true });
  };

  try {
    // --no-sync and fsync=off: the cluster is discarded after the run, durability buys nothing here.
    runAs(path.join(binDir, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    const port = await freeLoopbackPort();
    const serverOptions = `-c listen_addresses=127.0.0.1 -p ${port} -k ${socketDir} -c fsync=off -c full_page_writes=off`;
    runAs(pgCtl, ['-D', dataDir, '-l', path.join(root, 'server.log'), '-o', serverOptions, '-w', '-t', '30', 'start']);
    started = true;

    const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
    await createDatabase(adminUrl, 'skillchat_test');
    return { url: `postgres://postgres@127.0.0.1:${port}/skillchat_test`, binDir, stop };
  } catch (error) {
    const log = path.join(root, 'server.log');
    const tail = fs.existsSync(log) ? `\n--- server log ---\n${fs.readFileSync(log, 'utf8').slice(-2000)}` : '';
    stop();
    throw new Error(`${error instanceof Error ? error.message : String(error)}${tail}`);
  }
}

async function createDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

/**
 * A fresh empty database on the scratch server, so test files running in parallel never see each other's tables.
 * `baseUrl` is the URL the global setup provided; returns the new database's URL.
 */
export async function createScratchDatabase(baseUrl: string, prefix: string): Promise<string> {
  const name = `${prefix.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${process.pid}_${Date.now().toString(36)}`;
  const url = new URL(baseUrl);
  const admin = new URL(baseUrl);
  admin.pathname = '/postgres';
  await createDatabase(admin.toString(), name);
  url.pathname = `/${name}`;
  return url.toString();
}
