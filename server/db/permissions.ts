/**
 * Permission grants ("always allow", tied to the version they were given for), answers to approval prompts, and the
 * script-run log. A subject is stored as its kind and its key within the kind (`StoredSubject`); what the kinds are is
 * `server/consent/subjects.ts`'s business, not the database's.
 */
import { and, desc, eq, isNull } from 'drizzle-orm';
import { chatOwner } from './chats';
import { type Database, lockKey, withDb, withTransaction } from './client';
import type { PermissionDecision, PermissionDecisionRow, PermissionGrantRow, RunKind, ScriptRunRow } from './schema';

/** A consent subject as stored: its kind and its key within the kind. */
export interface StoredSubject {
  kind: string;
  key: string;
}

/** The unrevoked grant for exactly this version. */
/** `userId` null: a grant for everyone (an operator's matter); a person's id: that person's own standing grant. */
function activeGrant(d: Database, subject: StoredSubject, contentHash: string, userId: string | null) {
  const { permissionGrants } = d.t;
  return and(
    eq(permissionGrants.subjectKind, subject.kind),
    eq(permissionGrants.subject, subject.key),
    eq(permissionGrants.contentHash, contentHash),
    userId === null ? isNull(permissionGrants.userId) : eq(permissionGrants.userId, userId),
    isNull(permissionGrants.revokedAt),
  );
}

/** True when an unrevoked grant for everyone exists for exactly this version. */
export async function hasGrant(subject: StoredSubject, contentHash: string, d: Database): Promise<boolean> {
  const { permissionGrants } = d.t;
  const rows = await withDb(d, (db) =>
    db
      .select({ id: permissionGrants.id })
      .from(permissionGrants)
      .where(activeGrant(d, subject, contentHash, null)),
  );
  return rows.length > 0;
}

/**
 * The active grant for this version, created if there is none (two answers at once still make one grant); for
 * everyone, or the person's own when `userId` is given.
 */
export async function addGrant(
  subject: StoredSubject,
  contentHash: string,
  at: Date,
  d: Database,
  userId: string | null = null,
): Promise<PermissionGrantRow> {
  return withTransaction(d, async (tx) => {
    const { permissionGrants } = tx.t;
    await lockKey(tx, `grant:${userId ?? ''}:${subject.kind}:${subject.key}:${contentHash}`);
    const [existing] = await tx.db
      .select()
      .from(permissionGrants)
      .where(activeGrant(tx, subject, contentHash, userId));
    if (existing) return existing;
    const [created] = await tx.db
      .insert(permissionGrants)
      .values({ subjectKind: subject.kind, subject: subject.key, contentHash, grantedAt: at, userId })
      .returning();
    return created!;
  });
}

/** Active grants, newest first. */
export async function listGrants(d: Database): Promise<PermissionGrantRow[]> {
  const { permissionGrants } = d.t;
  return withDb(d, (db) =>
    db
      .select()
      .from(permissionGrants)
      .where(isNull(permissionGrants.revokedAt))
      .orderBy(desc(permissionGrants.grantedAt), desc(permissionGrants.id)),
  );
}

/** A person's own active grants of one kind, newest first. */
export async function listPersonalGrants(userId: string, kind: string, d: Database): Promise<PermissionGrantRow[]> {
  const { permissionGrants } = d.t;
  return withDb(d, (db) =>
    db
      .select()
      .from(permissionGrants)
      .where(
        and(
          eq(permissionGrants.userId, userId),
          eq(permissionGrants.subjectKind, kind),
          isNull(permissionGrants.revokedAt),
        ),
      )
      .orderBy(desc(permissionGrants.grantedAt), desc(permissionGrants.id)),
  );
}

/**
 * Revokes one grant; false when it did not exist or was already revoked. With `owner`, only that person's own grant
 * (a person revoking on /settings); without, any (an admin).
 */
export async function revokeGrant(id: number, at: Date, d: Database, owner?: string): Promise<boolean> {
  const { permissionGrants } = d.t;
  const rows = await withDb(d, (db) =>
    db
      .update(permissionGrants)
      .set({ revokedAt: at })
      .where(
        and(
          eq(permissionGrants.id, id),
          isNull(permissionGrants.revokedAt),
          ...(owner === undefined ? [] : [eq(permissionGrants.userId, owner)]),
        ),
      )
      .returning({ id: permissionGrants.id }),
  );
  return rows.length > 0;
}

/** Stores an answer to an approval prompt, attributed to the chat's owner. */
export async function recordDecision(
  input: {
    chatId: string | null;
    subject: StoredSubject;
    decision: PermissionDecision;
    contentHash: string;
    at?: Date;
  },
  d: Database,
): Promise<void> {
  await withTransaction(d, async (tx) => {
    const userId = input.chatId === null ? null : await chatOwner(input.chatId, tx);
    const chatId = userId === null ? null : input.chatId;
    const { subject, decision, contentHash } = input;
    await tx.db.insert(tx.t.permissionDecisions).values({
      chatId,
      userId,
      subjectKind: subject.kind,
      subject: subject.key,
      decision,
      contentHash,
      at: input.at ?? new Date(),
    });
  });
}

export async function listDecisions(limit: number, d: Database): Promise<PermissionDecisionRow[]> {
  const { permissionDecisions } = d.t;
  return withDb(d, (db) =>
    db
      .select()
      .from(permissionDecisions)
      .orderBy(desc(permissionDecisions.at), desc(permissionDecisions.id))
      .limit(limit),
  );
}

export interface ScriptRunInput {
  chatId: string | null;
  /** A skill's script (the default) or a shell command, whose command line is `script` and `args` empty. */
  kind?: RunKind;
  skillName: string;
  script: string;
  args: string[];
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  at?: Date;
}

/**
 * Logs a script run, attributed to the chat's owner. A run that ends after its chat was deleted is still logged,
 * without the chat (the same as the `set null` the chat's deletion applies to earlier runs), instead of failing
 * the foreign key.
 */
export async function recordScriptRun(input: ScriptRunInput, d: Database): Promise<void> {
  await withTransaction(d, async (tx) => {
    const userId = input.chatId === null ? null : await chatOwner(input.chatId, tx);
    await tx.db.insert(tx.t.scriptRuns).values({
      ...input,
      chatId: userId === null ? null : input.chatId,
      userId,
      args: JSON.stringify(input.args),
      durationMs: Math.round(input.durationMs),
      at: input.at ?? new Date(),
    });
  });
}

export async function listScriptRuns(
  limit: number,
  d: Database,
): Promise<Array<Omit<ScriptRunRow, 'args'> & { args: string[] }>> {
  const { scriptRuns } = d.t;
  const rows = await withDb(d, (db) =>
    db.select().from(scriptRuns).orderBy(desc(scriptRuns.at), desc(scriptRuns.id)).limit(limit),
  );
  return rows.map((row) => {
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
