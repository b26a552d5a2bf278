/**
 * The SQLite connection: one per process, opened on first use (never at import, so `next build` creates no file),
 * migrated on open, and cached on `globalThis` so Next dev reloads reuse it instead of leaking handles.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as schema from './schema';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export interface OpenDbOptions {
  /** Folder with the drizzle SQL files and `meta/_journal.json`. Default: see `resolveMigrationsFolder`. */
  migrationsFolder?: string;
  /**
   * Mark messages left `streaming` as `interrupted` (default true). A second process on the same file (a CLI
   * next to the running server) should pass false, or it would cut off the server's answers in progress.
   */
  recoverStreaming?: boolean;
}

export interface OpenReport {
  path: string;
  /** `wal`, or `memory` for `:memory:` databases. */
  journalMode: string;
  /** Messages found `streaming` at open and marked `interrupted`. */
  interruptedMessages: number;
}

const MEMORY = ':memory:';
const reports = new WeakMap<Db, OpenReport>();

/**
 * Opens (creating the file and its folder if needed), configures and migrates a database. Each call returns a new
 * connection: the app uses `getDb(path)` once (server/app.ts); tests use this with a temp file or `:memory:`.
 */
export function openDb(dbPath: string, options: OpenDbOptions = {}): Db {
  const isMemory = dbPath === MEMORY;
  const file = isMemory ? MEMORY : path.resolve(dbPath);
  if (!isMemory) fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new Database(file);
  try {
    // Before anything else, so the WAL switch and the migration wait for another process instead of failing.
    sqlite.pragma('busy_timeout = 5000');
    const journalMode = String(sqlite.pragma('journal_mode = WAL', { simple: true }));
    // FULL rather than NORMAL: in WAL mode NORMAL can lose the last commits on power loss; FULL costs a fraction of
    // a millisecond per commit, and a chat commits a few times per answer.
    sqlite.pragma('synchronous = FULL');
    const db: Db = drizzle(sqlite, { schema });

    // Migrations run with foreign keys off, as SQLite's table-rebuild procedure requires: drizzle-kit rebuilds a
    // table to alter a column, and dropping the old table with enforcement on would cascade-delete every message.
    // (`PRAGMA foreign_keys` is a no-op inside the migrator's transaction, so it has to be set here.)
    sqlite.pragma('foreign_keys = OFF');
    runMigrations(db, resolveMigrationsFolder(options.migrationsFolder));
    const violations = sqlite.pragma('foreign_key_check') as unknown[];
    if (violations.length > 0) {
      throw new Error(`Database migration left ${violations.length} foreign key violation(s) in ${file}`);
    }
    sqlite.pragma('foreign_keys = ON');

    const interruptedMessages = options.recoverStreaming === false ? 0 : markStreamingInterrupted(db);
    if (interruptedMessages > 0) {
      console.warn(`[db] ${interruptedMessages} answer(s) were still streaming when the server stopped: interrupted`);
    }
    reports.set(db, { path: file, journalMode, interruptedMessages });
    return db;
  } catch (error) {
    sqlite.close();
    throw error;
  }
}

function runMigrations(db: Db, migrationsFolder: string): void {
  try {
    migrate(db, { migrationsFolder });
  } catch (error) {
    // The migrator reads the applied version before its (deferred) BEGIN: a second process starting on a fresh
    // file at the same moment replays the CREATE TABLEs and fails. By then the first one has committed, so a
    // second pass sees the migrations applied and does nothing. A real migration error fails again and is thrown.
    try {
      migrate(db, { migrationsFolder });
    } catch {
      throw error;
    }
  }
}

/** What `openDb` found and did, for logs and the admin page. */
export function getOpenReport(db: Db): OpenReport | undefined {
  return reports.get(db);
}

/**
 * Marks every `streaming` message `interrupted` and returns how many. Run at open: a row still streaming then
 * belongs to a process that died mid-answer. Lives here, not in `messages.ts`, so opening needs no import cycle.
 */
export function markStreamingInterrupted(db: Db): number {
  // A literal, not a bound parameter, so SQLite can use the partial index `messages_streaming_idx`.
  const result = db
    .update(schema.messages)
    .set({ status: 'interrupted', updatedAt: new Date() })
    .where(sql`${schema.messages.status} = 'streaming'`)
    .run();
  return result.changes;
}

const JOURNAL = path.join('meta', '_journal.json');

/**
 * The migrations folder: the explicit option, else `SKILLCHAT_MIGRATIONS_DIR`, else the first `drizzle/` with a
 * journal found walking up from this source file (right for tsx, vitest and a CLI started from any folder), else
 * walking up from the working directory (the app folder under `next start`/`next dev`, where bundling may move
 * this module's URL).
 */
export function resolveMigrationsFolder(explicit?: string): string {
  const given = explicit ?? process.env.SKILLCHAT_MIGRATIONS_DIR;
  if (given) {
    const folder = path.resolve(given);
    if (!fs.existsSync(path.join(folder, JOURNAL))) {
      throw new Error(`Migrations folder has no ${JOURNAL}: ${folder}`);
    }
    return folder;
  }
  const starts = [moduleDir(), process.cwd()].filter((dir): dir is string => dir !== null);
  for (const start of starts) {
    const found = findUp(start, (dir) => fs.existsSync(path.join(dir, 'drizzle', JOURNAL)));
    if (found) return path.join(found, 'drizzle');
  }
  throw new Error(
    `No drizzle/${JOURNAL} found above ${starts.join(' or ')}; set SKILLCHAT_MIGRATIONS_DIR to the migrations folder`,
  );
}

function moduleDir(): string | null {
  try {
    const url = import.meta.url;
    return url.startsWith('file:') ? path.dirname(fileURLToPath(url)) : null;
  } catch {
    return null;
  }
}

function findUp(start: string, test: (dir: string) => boolean): string | null {
  let dir = path.resolve(start);
  for (;;) {
    if (test(dir)) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

interface CachedDb {
  db: Db;
  path: string;
}

const store = globalThis as typeof globalThis & { __skillchatDb?: CachedDb };

/**
 * The process's connection, opened on the first call at `dbPath` (the config's `databasePath`: the composition root,
 * server/app.ts, is the one caller in the app). Asking for another path while one is open is a bug: throws. Kept on
 * globalThis so Next dev reloads do not open a second connection.
 */
export function getDb(dbPath: string): Db {
  const wanted = dbPath === MEMORY ? MEMORY : path.resolve(dbPath);
  const cached = store.__skillchatDb;
  if (cached) {
    if (wanted !== undefined && wanted !== cached.path) {
      throw new Error(`getDb: the database is already open at ${cached.path}; cannot also open ${wanted}`);
    }
    return cached.db;
  }
  const target = wanted;
  const db = openDb(target);
  store.__skillchatDb = { db, path: target };
  return db;
}

/** Closes `db`, or the process's connection when no argument is given (a later `getDb()` opens it again). */
export function closeDb(db?: Db): void {
  const cached = store.__skillchatDb;
  const target = db ?? cached?.db;
  if (!target) return;
  if (cached?.db === target) store.__skillchatDb = undefined;
  if (target.$client.open) target.$client.close();
}
