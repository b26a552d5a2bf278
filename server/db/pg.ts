/**
 * The PostgreSQL connection (`DATABASE_URL=postgres://...`): a `pg` pool wrapped by drizzle's node-postgres
 * driver, migrated from `drizzle-pg/` on open. `openDatabase` (client.ts) opens it when `DATABASE_URL` is a
 * PostgreSQL URL; the named queries are written once over both dialects (docs/TEAM-SERVER.md).
 *
 * Several instances may start at once against one database, so migrations run while holding a session-level
 * advisory lock on a dedicated connection: the second instance waits, then finds everything applied.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import * as schema from './schema-pg';

export type PgDb = NodePgDatabase<typeof schema> & { $client: pg.Pool };

export interface OpenPgDbOptions {
  /** Folder with the PostgreSQL migrations. Default: `SKILLCHAT_PG_MIGRATIONS_DIR`, else `drizzle-pg/` found upwards. */
  migrationsFolder?: string;
  /** Pool size per instance (default 10). */
  max?: number;
}

/** Arbitrary constant naming "skillchat migrations" among advisory locks (64-bit key space). */
const MIGRATION_LOCK_KEY = 0x736b696c6c63;

export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//i.test(url);
}

export async function openPgDb(url: string, options: OpenPgDbOptions = {}): Promise<PgDb> {
  const migrationsFolder = resolvePgMigrationsFolder(options.migrationsFolder);
  const lockClient = new pg.Client({ connectionString: url });
  await lockClient.connect();
  try {
    await lockClient.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await migrate(drizzle({ client: lockClient }), { migrationsFolder });
    } finally {
      await lockClient.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await lockClient.end();
  }
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10 });
  return drizzle({ client: pool, schema }) as PgDb;
}

export async function closePgDb(db: PgDb): Promise<void> {
  await db.$client.end();
}

const JOURNAL = path.join('meta', '_journal.json');

export function resolvePgMigrationsFolder(explicit?: string): string {
  const given = explicit ?? process.env.SKILLCHAT_PG_MIGRATIONS_DIR;
  if (given) {
    const folder = path.resolve(given);
    if (!fs.existsSync(path.join(folder, JOURNAL))) throw new Error(`Migrations folder has no ${JOURNAL}: ${folder}`);
    return folder;
  }
  const starts = [path.dirname(fileURLToPath(import.meta.url)), process.cwd()];
  for (const start of starts) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      if (fs.existsSync(path.join(dir, 'drizzle-pg', JOURNAL))) return path.join(dir, 'drizzle-pg');
      if (path.dirname(dir) === dir) break;
    }
  }
  throw new Error(`No drizzle-pg/${JOURNAL} found; set SKILLCHAT_PG_MIGRATIONS_DIR to the migrations folder`);
}
