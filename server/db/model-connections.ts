/**
 * Rows of `model_connections`: the model servers added on /admin. These are only the queries; the connection store
 * (server/model/connections.ts) validates, seals the key and opens it.
 */
import { asc, eq } from 'drizzle-orm';
import { type Database, withDb } from './client';

export interface ModelConnectionRecord {
  id: string;
  kind: string;
  name: string;
  baseUrl: string;
  /** JSON array of model ids; null: every model the endpoint lists. */
  models: string | null;
  /** The sealed key (all four null: no key). */
  ciphertext: string | null;
  iv: string | null;
  tag: string | null;
  keyId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export async function insertModelConnection(row: ModelConnectionRecord, d: Database): Promise<void> {
  await withDb(d, (db) => db.insert(d.t.modelConnections).values(row));
}

/** Replaces everything but the id and creation time; false when there is no such connection. */
export async function updateModelConnection(row: ModelConnectionRecord, d: Database): Promise<boolean> {
  const t = d.t.modelConnections;
  const { id, createdAt: _created, ...rest } = row;
  const rows = await withDb(d, (db) => db.update(t).set(rest).where(eq(t.id, id)).returning({ id: t.id }));
  return rows.length > 0;
}

export async function getModelConnection(id: string, d: Database): Promise<ModelConnectionRecord | null> {
  const t = d.t.modelConnections;
  const rows = await withDb(d, (db) => db.select().from(t).where(eq(t.id, id)).limit(1));
  return rows[0] ?? null;
}

/** Every connection, oldest first (the order /admin and the picker show them in). */
export async function listModelConnections(d: Database): Promise<ModelConnectionRecord[]> {
  const t = d.t.modelConnections;
  return withDb(d, (db) => db.select().from(t).orderBy(asc(t.createdAt), asc(t.id)));
}

export async function deleteModelConnection(id: string, d: Database): Promise<boolean> {
  const t = d.t.modelConnections;
  const rows = await withDb(d, (db) => db.delete(t).where(eq(t.id, id)).returning({ id: t.id }));
  return rows.length > 0;
}
