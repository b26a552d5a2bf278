/**
 * Versions of a chat's tail, as sibling branches: `messages` stays the active path; editing message N or
 * answering N again stores the tail from N on as a version and puts the new one in its place; switching swaps the
 * active tail with a stored one (both kept). A group of versions hangs after a parent message (`''`: the start of
 * the chat). Groups nested inside a stored tail are owned by that version row and come back with it.
 * Callers check that the chat is the person's (the store does).
 */
import { randomUUID } from 'node:crypto';
import type { UIMessage } from 'ai';
import { and, asc, eq, gt, inArray, isNull, max, sql } from 'drizzle-orm';
import { type Database, lockChat, withDb, withTransaction } from './client';
import { DbError } from './errors';
import { MESSAGE_ROLES, type MessageRow, type MessageStatus } from './schema';

/** The start of the chat as a parent: a group of versions of the whole conversation. */
export const ROOT_PARENT = '';

/** What the UI shows under the first message of a tail: version `index` of `count` (1-based). */
export interface VersionGroup {
  parentId: string;
  index: number;
  count: number;
}

interface StoredRow {
  id: string;
  role: string;
  parts: string;
  metadata: string | null;
  status: MessageStatus;
  error: string | null;
  createdAt: number;
  updatedAt: number;
}

function toStoredRows(rows: MessageRow[]): string {
  return JSON.stringify(
    rows.map(
      (r): StoredRow => ({
        id: r.id,
        role: r.role,
        parts: r.parts,
        metadata: r.metadata,
        // No turn runs while a tail moves (the turn owns the chat); a row still streaming was cut off.
        status: r.status === 'streaming' ? 'interrupted' : r.status,
        error: r.error,
        createdAt: r.createdAt.getTime(),
        updatedAt: r.updatedAt.getTime(),
      }),
    ),
  );
}

function fromStoredRows(json: string): StoredRow[] {
  try {
    const value = JSON.parse(json) as unknown;
    if (!Array.isArray(value)) return [];
    return value.filter(
      (r): r is StoredRow =>
        typeof r === 'object' &&
        r !== null &&
        typeof r.id === 'string' &&
        (MESSAGE_ROLES as readonly string[]).includes(r.role) &&
        typeof r.parts === 'string',
    );
  } catch {
    return [];
  }
}

/** The position of `parentId` in the chat (0 for the root); throws `invalid-input` when it is not on the path. */
async function parentSeq(tx: Database, chatId: string, parentId: string): Promise<number> {
  if (parentId === ROOT_PARENT) return 0;
  const { messages } = tx.t;
  const [row] = await tx.db
    .select({ seq: messages.seq })
    .from(messages)
    .where(and(eq(messages.id, parentId), eq(messages.chatId, chatId)));
  if (!row) throw new DbError('invalid-input', `Message ${parentId} is not in this chat`);
  return row.seq;
}

async function activeTail(tx: Database, chatId: string, after: number): Promise<MessageRow[]> {
  const { messages } = tx.t;
  return tx.db
    .select()
    .from(messages)
    .where(and(eq(messages.chatId, chatId), gt(messages.seq, after)))
    .orderBy(asc(messages.seq));
}

/** Stores the active tail in version row `slotId`, hides the groups nested in it, and deletes its rows. */
async function stashTail(tx: Database, chatId: string, slotId: number, tail: MessageRow[]): Promise<void> {
  const { messages, messageVersions } = tx.t;
  await tx.db
    .update(messageVersions)
    .set({ messages: toStoredRows(tail) })
    .where(eq(messageVersions.id, slotId));
  const ids = tail.map((m) => m.id);
  if (ids.length === 0) return;
  await tx.db
    .update(messageVersions)
    .set({ ownerId: slotId })
    .where(
      and(eq(messageVersions.chatId, chatId), isNull(messageVersions.ownerId), inArray(messageVersions.parentId, ids)),
    );
  await tx.db.delete(messages).where(and(eq(messages.chatId, chatId), inArray(messages.id, ids)));
}

async function groupRows(tx: Database, chatId: string, parentId: string) {
  const { messageVersions: v } = tx.t;
  return tx.db
    .select()
    .from(v)
    .where(and(eq(v.chatId, chatId), eq(v.parentId, parentId), isNull(v.ownerId)))
    .orderBy(asc(v.versionNo));
}

/**
 * Replaces the tail after `parentId` by `replacement` (a new version; none: the tail is only stored, for a
 * regenerated answer about to stream), keeping the old tail as the previous version. Returns the new version's
 * number, or null when there was no tail to keep (nothing to version). Throws `invalid-input` when the parent is
 * not in the chat.
 */
export async function replaceTail(
  chatId: string,
  parentId: string,
  replacement: UIMessage | null,
  d: Database,
  at = new Date(),
): Promise<number | null> {
  return withTransaction(d, async (tx) => {
    const { messages, messageVersions: v, chats } = tx.t;
    await lockChat(tx, chatId);
    const after = await parentSeq(tx, chatId, parentId);
    const tail = await activeTail(tx, chatId, after);
    let versionNo: number | null = null;
    if (tail.length > 0) {
      const group = await groupRows(tx, chatId, parentId);
      let slot = group.find((row) => row.messages === null);
      if (!slot) {
        [slot] = await tx.db
          .insert(v)
          .values({ chatId, parentId, versionNo: 1, messages: '[]', createdAt: tail[0]!.createdAt })
          .returning();
      }
      await stashTail(tx, chatId, slot!.id, tail);
      const [last] = await tx.db
        .select({ n: max(v.versionNo) })
        .from(v)
        .where(and(eq(v.chatId, chatId), eq(v.parentId, parentId), isNull(v.ownerId)));
      versionNo = (last?.n ?? 0) + 1;
      await tx.db.insert(v).values({ chatId, parentId, versionNo, messages: null, createdAt: at });
    }
    if (replacement) {
      await tx.db.insert(messages).values({
        id: replacement.id,
        chatId,
        seq: after + 1,
        role: replacement.role,
        parts: JSON.stringify(replacement.parts),
        metadata: replacement.metadata === undefined ? null : JSON.stringify(replacement.metadata),
        status: 'complete',
        error: null,
        createdAt: at,
        updatedAt: at,
      });
    }
    await tx.db.update(chats).set({ updatedAt: at }).where(eq(chats.id, chatId));
    return versionNo;
  });
}

/**
 * Makes version `versionNo` of the group after `parentId` the active tail; the tail shown until now is kept as its
 * version. Throws `invalid-input` for a parent not on the active path or a version that does not exist.
 */
export async function switchVersion(chatId: string, parentId: string, versionNo: number, d: Database): Promise<void> {
  await withTransaction(d, async (tx) => {
    const { messages, messageVersions: v } = tx.t;
    await lockChat(tx, chatId);
    const after = await parentSeq(tx, chatId, parentId);
    const group = await groupRows(tx, chatId, parentId);
    const target = group.find((row) => row.versionNo === versionNo);
    if (!target) throw new DbError('invalid-input', `There is no version ${versionNo} here`);
    if (target.messages === null) return;
    const active = group.find((row) => row.messages === null);
    const tail = await activeTail(tx, chatId, after);
    if (active) await stashTail(tx, chatId, active.id, tail);
    else {
      // Not expected (a group always has its active row); keep the tail rather than lose it.
      const [slot] = await tx.db
        .insert(v)
        .values({ chatId, parentId, versionNo: (group.at(-1)?.versionNo ?? 0) + 1, createdAt: new Date() })
        .returning();
      await stashTail(tx, chatId, slot!.id, tail);
    }
    const rows = fromStoredRows(target.messages);
    if (rows.length > 0) {
      // Ids are global and come from browsers: one taken meanwhile (here or in another chat) gets a fresh id.
      const taken = new Set(
        (
          await tx.db
            .select({ id: messages.id })
            .from(messages)
            .where(
              inArray(
                messages.id,
                rows.map((r) => r.id),
              ),
            )
        ).map((m) => m.id),
      );
      await tx.db.insert(messages).values(
        rows.map((r, i) => ({
          id: taken.has(r.id) ? randomUUID() : r.id,
          chatId,
          seq: after + 1 + i,
          role: r.role as MessageRow['role'],
          parts: r.parts,
          metadata: r.metadata,
          status: r.status,
          error: r.error,
          createdAt: new Date(r.createdAt),
          updatedAt: new Date(r.updatedAt),
        })),
      );
    }
    await tx.db.update(v).set({ messages: null }).where(eq(v.id, target.id));
    await tx.db
      .update(v)
      .set({ ownerId: null })
      .where(and(eq(v.chatId, chatId), eq(v.ownerId, target.id)));
  });
}

/** The groups shown on the chat's active path: which version is active and how many there are. */
export async function listVersionGroups(chatId: string, d: Database): Promise<VersionGroup[]> {
  const { messageVersions: v, messages } = d.t;
  const [rows, onPath] = await Promise.all([
    withDb(d, (db) =>
      db
        .select({
          parentId: v.parentId,
          versionNo: v.versionNo,
          active: sql<number>`CASE WHEN ${v.messages} IS NULL THEN 1 ELSE 0 END`.mapWith(Number),
        })
        .from(v)
        .where(and(eq(v.chatId, chatId), isNull(v.ownerId)))
        .orderBy(asc(v.id)),
    ),
    withDb(d, (db) => db.select({ id: messages.id }).from(messages).where(eq(messages.chatId, chatId))),
  ]);
  const ids = new Set(onPath.map((m) => m.id));
  const groups = new Map<string, VersionGroup>();
  for (const row of rows) {
    if (row.parentId !== ROOT_PARENT && !ids.has(row.parentId)) continue;
    const group = groups.get(row.parentId) ?? { parentId: row.parentId, index: 0, count: 0 };
    group.count += 1;
    if (row.active === 1) group.index = row.versionNo;
    groups.set(row.parentId, group);
  }
  return [...groups.values()].filter((g) => g.count > 1 && g.index > 0);
}
