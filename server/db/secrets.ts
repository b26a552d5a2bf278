/**
 * Rows of `secrets`: values set on /admin (shared, `owner_id` empty) or on /settings (a person's own), sealed by
 * server/secrets/crypto.ts. These are only the queries; the store (server/secrets/store.ts) seals and opens.
 */
import { and, asc, eq } from 'drizzle-orm';
import { type Database, withDb } from './client';

export interface SecretRecord {
  name: string;
  /** `''`: the shared value; else the person's user id. */
  ownerId: string;
  ciphertext: string;
  iv: string;
  tag: string;
  keyId: string;
  updatedAt: Date;
}

/** Writes (or replaces) the value of one name for one owner. */
export async function upsertSecret(row: SecretRecord, d: Database): Promise<void> {
  const t = d.t.secrets;
  const { ciphertext, iv, tag, keyId, updatedAt } = row;
  await withDb(d, (db) =>
    db
      .insert(t)
      .values(row)
      .onConflictDoUpdate({ target: [t.name, t.ownerId], set: { ciphertext, iv, tag, keyId, updatedAt } }),
  );
}

export async function getSecretRecord(name: string, ownerId: string, d: Database): Promise<SecretRecord | null> {
  const t = d.t.secrets;
  const rows = await withDb(d, (db) =>
    db
      .select()
      .from(t)
      .where(and(eq(t.name, name), eq(t.ownerId, ownerId)))
      .limit(1),
  );
  return rows[0] ?? null;
}

/** One owner's names (never the values), by name. */
export async function listSecretRecords(
  ownerId: string,
  d: Database,
): Promise<Array<{ name: string; keyId: string; updatedAt: Date }>> {
  const t = d.t.secrets;
  return withDb(d, (db) =>
    db
      .select({ name: t.name, keyId: t.keyId, updatedAt: t.updatedAt })
      .from(t)
      .where(eq(t.ownerId, ownerId))
      .orderBy(asc(t.name)),
  );
}

/** Deletes one owner's value of one name; false when there was none. */
export async function deleteSecretRecord(name: string, ownerId: string, d: Database): Promise<boolean> {
  const t = d.t.secrets;
  const rows = await withDb(d, (db) =>
    db
      .delete(t)
      .where(and(eq(t.name, name), eq(t.ownerId, ownerId)))
      .returning({ name: t.name }),
  );
  return rows.length > 0;
}
