/**
 * Opening the database (SQLite by default, PostgreSQL with a `postgres://` URL), migrated on open, and the one handle
 * both dialects are queried through. The app opens it once per process (server/app.ts, `createApp`); tests and the
 * CLI open their own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDriver from 'better-sqlite3';
import { type SQL, sql } from 'drizzle-orm';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { processWide } from '../process-wide';
import { closePgDb, isPostgresUrl, openPgDb, type PgDb } from './pg';
import { recoverInterruptedAnswers, recoverInterruptedAnswersNow } from './recovery';
import * as schema from './schema';
import * as sqliteSchema from './schema';
import * as pgSchema from './schema-pg';
import { keepStatements } from './statement-cache';

export type Db = BetterSQLite3Database<typeof schema> & { $client: SqliteDriver.Database };

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
// Read by instrumentation, written where the app opened the database: another bundle, so kept process-wide.
const reports = processWide('sqlite-open-reports', () => new WeakMap<Db, OpenReport>());

/**
 * Opens (creating the file and its folder if needed), configures and migrates a database. Each call returns a new
 * connection: the app opens one (through `openDatabase`); tests use this with a temp file or `:memory:`.
 */
export function openDb(dbPath: string, options: OpenDbOptions = {}): Db {
  const isMemory = dbPath === MEMORY;
  const file = isMemory ? MEMORY : path.resolve(dbPath);
  if (!isMemory) fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new SqliteDriver(file);
  keepStatements(sqlite);
  try {
    // Before anything else, so the WAL switch and the migration wait for another process instead of failing.
    sqlite.pragma('busy_timeout = 5000');
    const journalMode = String(sqlite.pragma('journal_mode = WAL', { simple: true }));
    // FULL rather than NORMAL: in WAL mode NORMAL can lose the last commits on power loss. Each commit then waits
    // for the disk, so a turn commits as seldom as it can, and the turn leases' commits wait for none (`withoutFlush`).
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

    const interruptedMessages =
      options.recoverStreaming === false ? 0 : recoverInterruptedAnswersNow(sqliteDatabase(db)).interrupted;
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

/** Closes a SQLite connection (or the one under a `Database` handle). */
export function closeDb(db: Db | { native: { dialect: 'sqlite'; db: Db } | { dialect: 'pg' } }): void {
  if ('native' in db) {
    if (db.native.dialect !== 'sqlite') throw new Error('closeDb: a PostgreSQL handle closes with closeDatabase');
    db = db.native.db;
  }
  if (db.$client.open) db.$client.close();
}

// ---------------------------------------------------------------------------------------------------------------
// One handle for both dialects (docs/TEAM-SERVER.md, "One query layer for both dialects").

/**
 * The builder every named query is written against. The SQLite db is cast to it once, here: drizzle builds the SQL
 * from the db instance and the table objects at run time, and both dialects have the builder methods the queries
 * use. Rule: never `.get()/.all()/.run()` (SQLite only) or `.for('update')` (PostgreSQL only) outside the dialect
 * helpers below; take `[0]` instead of `.get()`, and `.returning(...)` to count changed rows.
 */
export type QueryDb = NodePgDatabase<typeof pgSchema>;

export interface Database {
  dialect: 'sqlite' | 'pg';
  db: QueryDb;
  /** The tables (SQLite's are cast to the PostgreSQL types: same property names and value types). */
  t: typeof pgSchema;
  /** The connection underneath (closing, dialect helpers). */
  native: { dialect: 'sqlite'; db: Db } | { dialect: 'pg'; db: PgDb };
  /** Set inside `withTransaction`: queries run on the transaction and take no lock of their own. */
  inTx?: boolean;
}

/** Wraps an open SQLite connection (sync: the app's default path and most tests). */
export function sqliteDatabase(db: Db): Database {
  return {
    dialect: 'sqlite',
    db: db as unknown as QueryDb,
    t: sqliteSchema as unknown as typeof pgSchema,
    native: { dialect: 'sqlite', db },
  };
}

export function pgDatabase(db: PgDb): Database {
  return { dialect: 'pg', db: db as unknown as QueryDb, t: pgSchema, native: { dialect: 'pg', db } };
}

export interface DatabaseConfig {
  /** The SQLite file (the default dialect). */
  databasePath: string;
  /** `postgres://...` selects PostgreSQL (the `DATABASE_URL` variable). */
  databaseUrl?: string;
}

/** Opens (and migrates) the configured database: PostgreSQL when `databaseUrl` is a postgres URL, else SQLite. */
export async function openDatabase(config: DatabaseConfig, options: OpenDbOptions = {}): Promise<Database> {
  if (isPostgresUrl(config.databaseUrl)) {
    const d = pgDatabase(await openPgDb(config.databaseUrl));
    if (options.recoverStreaming !== false) {
      // Only answers with no live lease: other instances may be answering right now (docs/TEAM-SERVER.md).
      const { interrupted } = await recoverInterruptedAnswers(d);
      if (interrupted > 0) {
        console.warn(`[db] ${interrupted} answer(s) were still streaming when the server stopped: interrupted`);
      }
    }
    return d;
  }
  return sqliteDatabase(openDb(config.databasePath, options));
}

export async function closeDatabase(d: Database): Promise<void> {
  if (d.native.dialect === 'pg') await closePgDb(d.native.db);
  else closeDb(d.native.db);
}

// SQLite has one connection per process: a statement of another request must never land inside an open
// transaction (it would commit or roll back with it). Every SQLite query and transaction takes this mutex, one per
// connection for the whole process: the connection is shared by every route bundle, so its queue must be too.
const tails = processWide('sqlite-queues', () => new WeakMap<object, Promise<void>>());

async function exclusive<T>(key: object, fn: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  tails.set(
    key,
    previous.then(() => mine),
  );
  await previous;
  try {
    return await fn();
  } finally {
    release();
  }
}

/** Runs one query (or a few that need no atomicity) on `d`. On SQLite it waits for any open transaction. */
export function withDb<T>(d: Database, fn: (db: QueryDb) => Promise<T>): Promise<T> {
  if (d.inTx || d.native.dialect === 'pg') return fn(d.db);
  return exclusive(d.native.db.$client, () => fn(d.db));
}

/**
 * Runs `fn` in one transaction. PostgreSQL: `db.transaction` (READ COMMITTED; read-then-write spots add
 * `lockChat`). SQLite: the process mutex, `BEGIN IMMEDIATE`, the callback, `COMMIT` (or `ROLLBACK` on a throw).
 * Nested calls join the outer transaction. The callback must await only database work (never the model or a script).
 */
export async function withTransaction<T>(d: Database, fn: (tx: Database) => Promise<T>): Promise<T> {
  if (d.inTx) return fn(d);
  const native = d.native;
  if (native.dialect === 'pg') {
    return native.db.transaction((tx) => fn({ ...d, db: tx as unknown as QueryDb, inTx: true }));
  }
  const client = native.db.$client;
  return exclusive(client, async () => {
    client.exec('BEGIN IMMEDIATE');
    try {
      const result = await fn({ ...d, inTx: true });
      client.exec('COMMIT');
      return result;
    } catch (error) {
      if (client.inTransaction) client.exec('ROLLBACK');
      throw error;
    }
  });
}

/**
 * Runs one write statement whose commit is not flushed to disk by itself (SQLite: `synchronous = NORMAL` for this
 * statement only; PostgreSQL: `synchronous_commit = off` for its transaction). Other connections see it at once, as
 * any commit; it reaches the disk with the next flushed commit, since both logs are written in order. Only a crash
 * of the machine (SQLite: every process on the file dies with it) or of the PostgreSQL server before that can lose
 * it, so only rows that mean nothing once their writer is gone belong here: the turn leases (`turn-leases.ts`).
 * Inside a transaction it is an ordinary statement of that transaction. The statement ends in `.returning(...)`.
 */
export async function withoutFlush<T>(d: Database, statement: (db: QueryDb) => PromiseLike<T>): Promise<T> {
  if (d.inTx) return statement(d.db);
  const native = d.native;
  if (native.dialect === 'pg') {
    return native.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL synchronous_commit = off`);
      return statement(tx as unknown as QueryDb);
    });
  }
  const client = native.db.$client;
  return exclusive(client, async () => {
    const level = client.pragma('synchronous', { simple: true });
    client.pragma('synchronous = NORMAL');
    try {
      // Run at once (drizzle's sync `.all()`), with no await between the pragmas: no other statement may run with
      // the lighter setting.
      return (statement(d.db) as unknown as { all(): T }).all();
    } finally {
      client.pragma(`synchronous = ${Number(level)}`);
    }
  });
}

/**
 * Serialises read-then-write work on one chat (message positions, approval answers): on PostgreSQL a row lock on
 * the chat until the transaction ends; on SQLite a no-op (`BEGIN IMMEDIATE` already serialises writers).
 * Call inside `withTransaction`.
 */
export async function lockChat(tx: Database, chatId: string): Promise<void> {
  if (tx.dialect !== 'pg') return;
  await tx.db.execute(sql`SELECT ${tx.t.chats.id} FROM ${tx.t.chats} WHERE ${tx.t.chats.id} = ${chatId} FOR UPDATE`);
}

/** Serialises work on an arbitrary key within a transaction (PostgreSQL advisory lock; a no-op on SQLite). */
export async function lockKey(tx: Database, key: string): Promise<void> {
  if (tx.dialect !== 'pg') return;
  await tx.db.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${key}))`);
}

/** A raw SELECT, rows as objects (dialect-specific SQL stays in the caller's branch). */
export async function rawAll<R>(d: Database, query: SQL): Promise<R[]> {
  const native = d.native;
  if (native.dialect === 'pg') return (await d.db.execute(query)).rows as R[];
  return withDb(d, async () => native.db.all<R>(query));
}
