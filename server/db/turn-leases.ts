/**
 * The running-turn lease (docs/TEAM-SERVER.md, "Two instances"): one `chat_turns` row per chat while an answer
 * runs, shared by every instance on the database. The same statements serve SQLite and PostgreSQL: times are bound
 * as parameters (the instance's clock), never `now()`, so no dialect branch is needed.
 *
 * A lease's own commits are not flushed to disk (`withoutFlush`): a lease means something only while its instance
 * lives, and what could lose such a commit (the machine, or the PostgreSQL server, going down before the next flushed
 * commit) also ends or fails that instance's turn; a lease lost that way is one that recovery or the expiry would
 * drop. The answer's own writes stay flushed, and carry the lease's other writes (`chat/db-store.ts`).
 */
import os from 'node:os';
import { and, eq, gte, inArray, lt } from 'drizzle-orm';
import { type Database, withDb, withoutFlush } from './client';
import { isDeadLocalInstance, type LeaseTimings, leaseTimingsFromEnv, orphanedStreamingWhere } from './lease-rules';

export { isDeadLocalInstance, type LeaseTimings, leaseTimingsFromEnv as leaseTimings, orphanedStreamingWhere };

/**
 * This process's id in `chat_turns.instance_id`: `host:pid:random`. The host and pid let a restarted instance
 * recognise the leases of its own dead predecessor (`recovery.ts`); the random part keeps a reused pid
 * (pid 1 in a container) from being taken for this process.
 */
export function newInstanceId(): string {
  return `${os.hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * Takes the chat's lease: a new row, or the row of a lease whose heartbeat is older than the expiry (its instance
 * died). One statement, so two instances racing for a chat cannot both win. False: a live turn runs elsewhere.
 */
export async function acquireTurnLease(
  d: Database,
  input: { chatId: string; instanceId: string; messageId?: string | null; now?: Date; expiryMs: number },
): Promise<boolean> {
  const t = d.t.chatTurns;
  const now = input.now ?? new Date();
  const cutoff = new Date(now.getTime() - input.expiryMs);
  const row = {
    instanceId: input.instanceId,
    messageId: input.messageId ?? null,
    startedAt: now,
    heartbeatAt: now,
    stopRequestedAt: null,
  };
  const rows = await withoutFlush(d, (db) =>
    db
      .insert(t)
      .values({ chatId: input.chatId, ...row })
      .onConflictDoUpdate({ target: t.chatId, set: row, setWhere: lt(t.heartbeatAt, cutoff) })
      .returning({ chatId: t.chatId }),
  );
  return rows.length > 0;
}

/** Records the answer a lease's turn writes (for the admin page and recovery logs), in the answer's first write. */
export async function setTurnLeaseMessage(d: Database, chatId: string, instanceId: string, messageId: string) {
  const t = d.t.chatTurns;
  await withDb(d, (db) =>
    db
      .update(t)
      .set({ messageId })
      .where(and(eq(t.chatId, chatId), eq(t.instanceId, instanceId))),
  );
}

export interface HeartbeatResult {
  /** Leases still held by this instance, refreshed. A chat missing here lost its lease (expired and taken). */
  held: Set<string>;
  /** Chats whose Stop was pressed on another instance. */
  stopRequested: Set<string>;
}

/** Refreshes this instance's leases on `chatIds` and reports which are still held and which were asked to stop. */
export async function heartbeatTurnLeases(
  d: Database,
  instanceId: string,
  chatIds: readonly string[],
  now: Date = new Date(),
): Promise<HeartbeatResult> {
  const result: HeartbeatResult = { held: new Set(), stopRequested: new Set() };
  if (chatIds.length === 0) return result;
  const t = d.t.chatTurns;
  const rows = await withoutFlush(d, (db) =>
    db
      .update(t)
      .set({ heartbeatAt: now })
      .where(and(eq(t.instanceId, instanceId), inArray(t.chatId, [...chatIds])))
      .returning({ chatId: t.chatId, stopRequestedAt: t.stopRequestedAt }),
  );
  for (const row of rows) {
    result.held.add(row.chatId);
    if (row.stopRequestedAt) result.stopRequested.add(row.chatId);
  }
  return result;
}

/**
 * Ends this instance's lease on a chat: with the answer's last write, or in the turn's `finally`. Another instance's
 * lease is left alone. False when this instance held none.
 */
export async function releaseTurnLease(d: Database, chatId: string, instanceId: string): Promise<boolean> {
  const t = d.t.chatTurns;
  const rows = await withoutFlush(d, (db) =>
    db
      .delete(t)
      .where(and(eq(t.chatId, chatId), eq(t.instanceId, instanceId)))
      .returning({ chatId: t.chatId }),
  );
  return rows.length > 0;
}

/**
 * Asks the instance running the chat's turn to stop (Stop pressed on another instance). Returns that instance's
 * id, or null when no live lease exists (nothing is running anywhere).
 */
export async function requestTurnStop(
  d: Database,
  chatId: string,
  options: { now?: Date; expiryMs: number },
): Promise<string | null> {
  const t = d.t.chatTurns;
  const now = options.now ?? new Date();
  const cutoff = new Date(now.getTime() - options.expiryMs);
  const rows = await withDb(d, (db) =>
    db
      .update(t)
      .set({ stopRequestedAt: now })
      .where(and(eq(t.chatId, chatId), gte(t.heartbeatAt, cutoff)))
      .returning({ instanceId: t.instanceId }),
  );
  return rows[0]?.instanceId ?? null;
}

/** The live lease of a chat, if any (tests, the admin page). */
export async function getTurnLease(d: Database, chatId: string) {
  const t = d.t.chatTurns;
  const rows = await withDb(d, (db) => db.select().from(t).where(eq(t.chatId, chatId)));
  return rows[0] ?? null;
}
