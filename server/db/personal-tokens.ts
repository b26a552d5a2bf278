/**
 * Personal access tokens: rows of `personal_tokens`, looked up by the token's SHA-256. Making and checking
 * tokens is `server/auth/personal-tokens.ts`; these are only the queries.
 */
import { and, desc, eq, isNull } from 'drizzle-orm';
import { type Database, withDb } from './client';
import * as sqliteAuth from './schema-auth';
import * as pgAuth from './schema-auth-pg';

export interface PersonalTokenRow {
  id: string;
  userId: string;
  name: string;
  hint: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const COLUMNS = (t: Database['t']['personalTokens']) => ({
  id: t.id,
  userId: t.userId,
  name: t.name,
  hint: t.hint,
  createdAt: t.createdAt,
  lastUsedAt: t.lastUsedAt,
  revokedAt: t.revokedAt,
});

export async function insertPersonalToken(
  row: { id: string; userId: string; name: string; tokenHash: string; hint: string; createdAt: Date },
  d: Database,
): Promise<void> {
  await withDb(d, (db) => db.insert(d.t.personalTokens).values(row));
}

/** A person's tokens, newest first, revoked ones included (the list says so). */
export async function listPersonalTokens(userId: string, d: Database): Promise<PersonalTokenRow[]> {
  const t = d.t.personalTokens;
  return withDb(d, (db) =>
    db.select(COLUMNS(t)).from(t).where(eq(t.userId, userId)).orderBy(desc(t.createdAt), desc(t.id)),
  );
}

/** The live (not revoked) token with this hash, or null. */
export async function findPersonalToken(tokenHash: string, d: Database): Promise<PersonalTokenRow | null> {
  const t = d.t.personalTokens;
  const rows = await withDb(d, (db) =>
    db
      .select(COLUMNS(t))
      .from(t)
      .where(and(eq(t.tokenHash, tokenHash), isNull(t.revokedAt)))
      .limit(1),
  );
  return rows[0] ?? null;
}

/** Marks one of `userId`'s tokens revoked; false when they have no such live token. */
export async function revokePersonalToken(userId: string, id: string, d: Database): Promise<boolean> {
  const t = d.t.personalTokens;
  const rows = await withDb(d, (db) =>
    db
      .update(t)
      .set({ revokedAt: new Date() })
      .where(and(eq(t.id, id), eq(t.userId, userId), isNull(t.revokedAt)))
      .returning({ id: t.id }),
  );
  return rows.length > 0;
}

export async function touchPersonalToken(id: string, at: Date, d: Database): Promise<void> {
  const t = d.t.personalTokens;
  await withDb(d, (db) => db.update(t).set({ lastUsedAt: at }).where(eq(t.id, id)));
}

/** The account a token belongs to, as the access check needs it; null when the account is gone. */
export async function tokenOwner(
  userId: string,
  d: Database,
): Promise<{ id: string; email: string; role: string | null; banned: boolean | null } | null> {
  // The account tables are not in `d.t` on SQLite (better-auth owns them); the same columns on both dialects.
  const u = d.dialect === 'pg' ? pgAuth.users : (sqliteAuth.users as unknown as typeof pgAuth.users);
  const rows = await withDb(d, (db) =>
    db.select({ id: u.id, email: u.email, role: u.role, banned: u.banned }).from(u).where(eq(u.id, userId)).limit(1),
  );
  return rows[0] ?? null;
}
