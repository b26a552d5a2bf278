/**
 * Permission grants ("always allow", tied to a content hash), answers to approval prompts, and the script-run log.
 */
import { and, desc, eq, isNull } from 'drizzle-orm';
import { chatExists } from './chats';
import type { Db } from './client';
import {
  type PermissionDecision,
  type PermissionDecisionRow,
  type PermissionGrantRow,
  permissionDecisions,
  permissionGrants,
  type ScriptRunRow,
  scriptRuns,
} from './schema';

/** True when an unrevoked grant exists for exactly this content. */
/** The unrevoked grant for exactly this content. */
function activeGrant(skillName: string, contentHash: string) {
  return and(
    eq(permissionGrants.skillName, skillName),
    eq(permissionGrants.contentHash, contentHash),
    isNull(permissionGrants.revokedAt),
  );
}

export function hasGrant(skillName: string, contentHash: string, db: Db): boolean {
  return (
    db.select({ id: permissionGrants.id }).from(permissionGrants).where(activeGrant(skillName, contentHash)).get() !==
    undefined
  );
}

export function addGrant(skillName: string, contentHash: string, at = new Date(), db: Db): PermissionGrantRow {
  return db.transaction(
    () => {
      const existing = db.select().from(permissionGrants).where(activeGrant(skillName, contentHash)).get();
      return (
        existing ?? db.insert(permissionGrants).values({ skillName, contentHash, grantedAt: at }).returning().get()
      );
    },
    { behavior: 'immediate' },
  );
}

/** Active grants, newest first. */
export function listGrants(db: Db): PermissionGrantRow[] {
  return db
    .select()
    .from(permissionGrants)
    .where(isNull(permissionGrants.revokedAt))
    .orderBy(desc(permissionGrants.grantedAt), desc(permissionGrants.id))
    .all();
}

/** Revokes one grant; false when it did not exist or was already revoked. */
export function revokeGrant(id: number, at = new Date(), db: Db): boolean {
  return (
    db
      .update(permissionGrants)
      .set({ revokedAt: at })
      .where(and(eq(permissionGrants.id, id), isNull(permissionGrants.revokedAt)))
      .run().changes > 0
  );
}

export function recordDecision(
  input: { chatId: string | null; skillName: string; decision: PermissionDecision; contentHash: string; at?: Date },
  db: Db,
): void {
  db.insert(permissionDecisions)
    .values({ ...input, at: input.at ?? new Date() })
    .run();
}

export function listDecisions(limit = 100, db: Db): PermissionDecisionRow[] {
  return db
    .select()
    .from(permissionDecisions)
    .orderBy(desc(permissionDecisions.at), desc(permissionDecisions.id))
    .limit(limit)
    .all();
}

export interface ScriptRunInput {
  chatId: string | null;
  skillName: string;
  script: string;
  args: string[];
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  at?: Date;
}

/**
 * Logs a script run. A run that ends after its chat was deleted is still logged, without the chat (the same as
 * the `set null` the chat's deletion applies to earlier runs), instead of failing the foreign key.
 */
export function recordScriptRun(input: ScriptRunInput, db: Db): void {
  db.transaction(
    () => {
      const chatId = input.chatId !== null && chatExists(input.chatId, db) ? input.chatId : null;
      db.insert(scriptRuns)
        .values({
          ...input,
          chatId,
          args: JSON.stringify(input.args),
          durationMs: Math.round(input.durationMs),
          at: input.at ?? new Date(),
        })
        .run();
    },
    { behavior: 'immediate' },
  );
}

export function listScriptRuns(limit = 100, db: Db): Array<Omit<ScriptRunRow, 'args'> & { args: string[] }> {
  return db
    .select()
    .from(scriptRuns)
    .orderBy(desc(scriptRuns.at), desc(scriptRuns.id))
    .limit(limit)
    .all()
    .map((row) => {
      let args: string[] = [];
      try {
        const parsed: unknown = JSON.parse(row.args);
        if (Array.isArray(parsed)) args = parsed.map(String);
      } catch {
        // A corrupt row still lists; its arguments show as none.
      }
      return { ...row, args };
    });
}
