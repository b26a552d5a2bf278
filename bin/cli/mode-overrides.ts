/**
 * The modes an admin set on /admin (table `skill_modes` of the app's SQLite database, server/db/skill-modes.ts), read
 * for `list` with one read-only query of its own: the CLI never migrates, writes or holds the app's connection, and
 * loads better-sqlite3 only when the database file exists (never for `validate`).
 */
import fs from 'node:fs';
import { SKILL_MODES, type SkillMode } from '../../server/config';

export interface ModeOverrides {
  modes: Map<string, SkillMode>;
  /** Why the overrides could not be read (the access shown is then the config's alone). */
  problem?: string;
}

export async function readModeOverrides(databasePath: string): Promise<ModeOverrides> {
  const modes = new Map<string, SkillMode>();
  if (!fs.existsSync(databasePath)) return { modes };
  try {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(databasePath, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 2000');
      const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'skill_modes'").get();
      // A database the app has not migrated that far has no modes yet.
      if (!table) return { modes };
      const rows = db.prepare('SELECT skill_name AS name, mode FROM skill_modes').all() as Array<{
        name: unknown;
        mode: unknown;
      }>;
      for (const { name, mode } of rows) {
        if (typeof name === 'string' && SKILL_MODES.includes(mode as SkillMode)) modes.set(name, mode as SkillMode);
      }
      return { modes };
    } finally {
      db.close();
    }
  } catch (error) {
    return { modes, problem: `${databasePath}: ${error instanceof Error ? error.message : String(error)}` };
  }
}
