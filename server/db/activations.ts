/**
 * Skill activations: a per-chat summary (`activations`) for the chat page and an event log
 * (`activation_events`) for the admin page, written together so they never disagree.
 */
import { and, count, desc, eq, max, type SQL, sql, sum } from 'drizzle-orm';
import { processWide } from '../process-wide';
import { chatOwner } from './chats';
import { type Database, withDb, withTransaction } from './client';
import { DbError } from './errors';
import type { ActivationEventRow, ActivationHow, ActivationRow } from './schema';

/** A skill's activations in one chat; `count` is `explicitCount + modelCount`. */
export type ChatActivation = ActivationRow & { count: number };

export type ActivationEvent = ActivationEventRow & { chatTitle: string };

export interface SkillActivationCount {
  skillName: string;
  count: number;
  explicitCount: number;
  modelCount: number;
  /** Chats the skill was activated in. */
  chatCount: number;
  lastAt: Date;
}

/**
 * Records one activation: appends an event and updates the chat's summary for the skill, in one transaction.
 * `at` defaults to now; an `at` older than what is stored updates the counts and `first*`, not `last*`.
 * The summary is one `INSERT ... ON CONFLICT DO UPDATE`, so concurrent activations all count on PostgreSQL too.
 * The event is attributed to the chat's owner. Throws `chat-not-found`.
 */
export async function recordActivation(
  chatId: string,
  skillName: string,
  how: ActivationHow,
  at: Date,
  d: Database,
  /** What this activation was approved under (a served skill's listing); kept when it is the latest. */
  version: string | null = null,
): Promise<ChatActivation> {
  if (skillName.trim() === '') throw new DbError('invalid-input', 'A skill name cannot be empty');
  const explicit = how === 'explicit' ? 1 : 0;
  const least = d.dialect === 'pg' ? 'least' : 'min';
  const greatest = d.dialect === 'pg' ? 'greatest' : 'max';
  const activation = await withTransaction(d, async (tx) => {
    const { activations, activationEvents } = tx.t;
    const userId = await chatOwner(chatId, tx);
    if (userId === null) throw new DbError('chat-not-found', `No chat with id ${chatId}`);
    await tx.db.insert(activationEvents).values({ chatId, skillName, how, at, userId });
    // In an UPDATE every right-hand side reads the row as it was, so the CASEs compare with the old times.
    const [row] = await tx.db
      .insert(activations)
      .values({
        chatId,
        skillName,
        firstHow: how,
        lastHow: how,
        explicitCount: explicit,
        modelCount: 1 - explicit,
        firstAt: at,
        lastAt: at,
        version,
      })
      .onConflictDoUpdate({
        target: [activations.chatId, activations.skillName],
        set: {
          explicitCount: sql`${activations.explicitCount} + ${explicit}`,
          modelCount: sql`${activations.modelCount} + ${1 - explicit}`,
          firstHow: sql`case when excluded.first_at < ${activations.firstAt} then excluded.first_how else ${activations.firstHow} end`,
          firstAt: sql`${sql.raw(least)}(${activations.firstAt}, excluded.first_at)`,
          lastHow: sql`case when excluded.last_at >= ${activations.lastAt} then excluded.last_how else ${activations.lastHow} end`,
          lastAt: sql`${sql.raw(greatest)}(${activations.lastAt}, excluded.last_at)`,
          version: sql`case when excluded.last_at >= ${activations.lastAt} then excluded.version else ${activations.version} end`,
        },
      })
      .returning();
    return withCount(row!);
  });
  // This process's own uses count at once in the kept use counts (`usageCounts`).
  const kept = keptUsage.get(d.native.db);
  kept?.counts.set(skillName, (kept.counts.get(skillName) ?? 0) + 1);
  return activation;
}

/** The skills activated in a chat, in the order they were first activated. */
export async function getChatActivations(chatId: string, d: Database): Promise<ChatActivation[]> {
  const { activations } = d.t;
  const rows = await withDb(d, (db) =>
    db
      .select()
      .from(activations)
      .where(eq(activations.chatId, chatId))
      .orderBy(activations.firstAt, activations.skillName),
  );
  return rows.map(withCount);
}

export interface ActivationEventQuery {
  /** Default 50, at most 500. */
  limit?: number;
  offset?: number;
  skillName?: string;
  chatId?: string;
}

const MAX_EVENTS_PAGE = 500;

/** Activation events across chats, newest first, with each chat's title. */
export async function listActivationEvents(query: ActivationEventQuery, d: Database): Promise<ActivationEvent[]> {
  const limit = Math.min(Math.max(Math.trunc(query.limit ?? 50), 0), MAX_EVENTS_PAGE);
  const offset = Math.max(Math.trunc(query.offset ?? 0), 0);
  const { activationEvents, chats } = d.t;
  return withDb(d, (db) =>
    db
      .select({
        id: activationEvents.id,
        chatId: activationEvents.chatId,
        skillName: activationEvents.skillName,
        how: activationEvents.how,
        at: activationEvents.at,
        userId: activationEvents.userId,
        chatTitle: chats.title,
      })
      .from(activationEvents)
      .innerJoin(chats, eq(chats.id, activationEvents.chatId))
      .where(eventFilter(d, query))
      .orderBy(desc(activationEvents.at), desc(activationEvents.id))
      .limit(limit)
      .offset(offset),
  );
}

/** How many events `listActivationEvents` pages through with the same filters. */
export async function countActivationEvents(
  query: Pick<ActivationEventQuery, 'skillName' | 'chatId'>,
  d: Database,
): Promise<number> {
  const rows = await withDb(d, (db) =>
    db.select({ n: count() }).from(d.t.activationEvents).where(eventFilter(d, query)),
  );
  return Number(rows[0]?.n ?? 0);
}

function eventFilter(d: Database, query: Pick<ActivationEventQuery, 'skillName' | 'chatId'>): SQL | undefined {
  const { activationEvents } = d.t;
  return and(
    query.skillName === undefined ? undefined : eq(activationEvents.skillName, query.skillName),
    query.chatId === undefined ? undefined : eq(activationEvents.chatId, query.chatId),
  );
}

/** Totals per skill over all chats, most activated first. Deleted chats no longer count. */
export async function activationCountsBySkill(d: Database): Promise<SkillActivationCount[]> {
  const { activations } = d.t;
  const rows = await withDb(d, (db) =>
    db
      .select({
        skillName: activations.skillName,
        explicitCount: sum(activations.explicitCount).mapWith(Number),
        modelCount: sum(activations.modelCount).mapWith(Number),
        chatCount: count().mapWith(Number),
        lastAt: max(activations.lastAt).mapWith(activations.lastAt),
      })
      .from(activations)
      .groupBy(activations.skillName),
  );
  return rows
    .map((r) => ({ ...r, count: r.explicitCount + r.modelCount, lastAt: r.lastAt ?? new Date(0) }))
    .sort((a, b) => b.count - a.count || a.skillName.localeCompare(b.skillName));
}

export interface UserUsage {
  /** null: rows from before per-person data, or of a deleted account. */
  userId: string | null;
  activations: number;
  scriptRuns: number;
}

/** Activations (events) and script runs counted per person, for /admin. Most active first. */
export async function usageByUser(d: Database): Promise<UserUsage[]> {
  const { activationEvents, scriptRuns } = d.t;
  const [events, runs] = await withDb(d, async (db) => [
    await db
      .select({ userId: activationEvents.userId, n: count().mapWith(Number) })
      .from(activationEvents)
      .groupBy(activationEvents.userId),
    await db
      .select({ userId: scriptRuns.userId, n: count().mapWith(Number) })
      .from(scriptRuns)
      .groupBy(scriptRuns.userId),
  ]);
  const byUser = new Map<string | null, UserUsage>();
  const entry = (userId: string | null) => {
    let found = byUser.get(userId);
    if (!found) {
      found = { userId, activations: 0, scriptRuns: 0 };
      byUser.set(userId, found);
    }
    return found;
  };
  for (const e of events) entry(e.userId).activations += e.n;
  for (const r of runs) entry(r.userId).scriptRuns += r.n;
  return [...byUser.values()].sort(
    (a, b) =>
      b.activations + b.scriptRuns - (a.activations + a.scriptRuns) ||
      (a.userId === null ? 1 : 0) - (b.userId === null ? 1 : 0) ||
      String(a.userId).localeCompare(String(b.userId)),
  );
}

function withCount(row: ActivationRow): ChatActivation {
  return { ...row, count: row.explicitCount + row.modelCount };
}

/** How long a process keeps the use counts (`usageCounts`) before it reads them again. */
export const USAGE_KEPT_MS = 60_000;

interface KeptUsage {
  counts: Map<string, number>;
  readAt: number;
}
/**
 * Per database handle (its native client), so every person's store of a process shares one; process-wide, as the
 * uses recorded by one route bundle must count in the catalogs another builds.
 */
const { keptUsage, readingUsage } = processWide('usage-counts', () => ({
  keptUsage: new WeakMap<object, KeptUsage>(),
  readingUsage: new WeakMap<object, Promise<KeptUsage>>(),
}));

/**
 * Activations per skill over all chats (`count`), which orders the catalog when skills must be left out. Read at each
 * new chat's first turn, it is a GROUP BY over every chat's activations (slow once there are many), so it is kept
 * per database handle: only the first call waits for a read. Uses recorded by this process count at once
 * (`recordActivation`); once the counts are `USAGE_KEPT_MS` old, a call gets them as kept and starts a read in the
 * background, so another instance's uses (and deleted chats) show within about that time. One read at a time.
 */
export async function usageCounts(d: Database, now: number = Date.now()): Promise<ReadonlyMap<string, number>> {
  const key = d.native.db;
  const kept = keptUsage.get(key);
  if (kept && now - kept.readAt < USAGE_KEPT_MS) return kept.counts;
  let reading = readingUsage.get(key);
  if (!reading) {
    reading = activationCountsBySkill(d)
      .then((rows) => {
        const fresh = { counts: new Map(rows.map((r) => [r.skillName, r.count])), readAt: now };
        keptUsage.set(key, fresh);
        return fresh;
      })
      .finally(() => readingUsage.delete(key));
    readingUsage.set(key, reading);
    // The kept counts serve meanwhile; a failed read is tried again at the next call.
    if (kept) reading.catch((error: unknown) => console.warn('[skillchat] could not read the use counts', error));
  }
  return kept ? kept.counts : (await reading).counts;
}
