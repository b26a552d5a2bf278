/**
 * Skill activations: a per-chat summary (`activations`) for the chat page and an event log
 * (`activation_events`) for the admin page, written together so they never disagree.
 */
import { and, count, desc, eq, max, type SQL, sql, sum } from 'drizzle-orm';
import { chatExists } from './chats';
import type { Db } from './client';
import { DbError } from './errors';
import {
  type ActivationEventRow,
  type ActivationHow,
  type ActivationRow,
  activationEvents,
  activations,
  chats,
} from './schema';

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
 * Throws `chat-not-found`.
 */
export function recordActivation(
  chatId: string,
  skillName: string,
  how: ActivationHow,
  at: Date = new Date(),
  db: Db,
): ChatActivation {
  if (skillName.trim() === '') throw new DbError('invalid-input', 'A skill name cannot be empty');
  const explicit = how === 'explicit' ? 1 : 0;
  return db.transaction(
    () => {
      if (!chatExists(chatId, db)) throw new DbError('chat-not-found', `No chat with id ${chatId}`);
      db.insert(activationEvents).values({ chatId, skillName, how, at }).run();
      // In an UPDATE every right-hand side reads the row as it was, so the CASEs compare with the old times.
      const row = db
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
        })
        .onConflictDoUpdate({
          target: [activations.chatId, activations.skillName],
          set: {
            explicitCount: sql`${activations.explicitCount} + ${explicit}`,
            modelCount: sql`${activations.modelCount} + ${1 - explicit}`,
            firstHow: sql`case when excluded.first_at < ${activations.firstAt} then excluded.first_how else ${activations.firstHow} end`,
            firstAt: sql`min(${activations.firstAt}, excluded.first_at)`,
            lastHow: sql`case when excluded.last_at >= ${activations.lastAt} then excluded.last_how else ${activations.lastHow} end`,
            lastAt: sql`max(${activations.lastAt}, excluded.last_at)`,
          },
        })
        .returning()
        .get();
      return withCount(row);
    },
    { behavior: 'immediate' },
  );
}

/** The skills activated in a chat, in the order they were first activated. */
export function getChatActivations(chatId: string, db: Db): ChatActivation[] {
  return db
    .select()
    .from(activations)
    .where(eq(activations.chatId, chatId))
    .orderBy(activations.firstAt, activations.skillName)
    .all()
    .map(withCount);
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
export function listActivationEvents(query: ActivationEventQuery = {}, db: Db): ActivationEvent[] {
  const limit = Math.min(Math.max(Math.trunc(query.limit ?? 50), 0), MAX_EVENTS_PAGE);
  const offset = Math.max(Math.trunc(query.offset ?? 0), 0);
  return db
    .select({
      id: activationEvents.id,
      chatId: activationEvents.chatId,
      skillName: activationEvents.skillName,
      how: activationEvents.how,
      at: activationEvents.at,
      chatTitle: chats.title,
    })
    .from(activationEvents)
    .innerJoin(chats, eq(chats.id, activationEvents.chatId))
    .where(eventFilter(query))
    .orderBy(desc(activationEvents.at), desc(activationEvents.id))
    .limit(limit)
    .offset(offset)
    .all();
}

/** How many events `listActivationEvents` pages through with the same filters. */
export function countActivationEvents(query: Pick<ActivationEventQuery, 'skillName' | 'chatId'> = {}, db: Db): number {
  return db.select({ n: count() }).from(activationEvents).where(eventFilter(query)).get()?.n ?? 0;
}

function eventFilter(query: Pick<ActivationEventQuery, 'skillName' | 'chatId'>): SQL | undefined {
  return and(
    query.skillName === undefined ? undefined : eq(activationEvents.skillName, query.skillName),
    query.chatId === undefined ? undefined : eq(activationEvents.chatId, query.chatId),
  );
}

/** Totals per skill over all chats, most activated first. Deleted chats no longer count. */
export function activationCountsBySkill(db: Db): SkillActivationCount[] {
  const rows = db
    .select({
      skillName: activations.skillName,
      explicitCount: sum(activations.explicitCount).mapWith(Number),
      modelCount: sum(activations.modelCount).mapWith(Number),
      chatCount: count(),
      lastAt: max(activations.lastAt).mapWith(activations.lastAt),
    })
    .from(activations)
    .groupBy(activations.skillName)
    .all();
  return rows
    .map((r) => ({ ...r, count: r.explicitCount + r.modelCount, lastAt: r.lastAt ?? new Date(0) }))
    .sort((a, b) => b.count - a.count || a.skillName.localeCompare(b.skillName));
}

function withCount(row: ActivationRow): ChatActivation {
  return { ...row, count: row.explicitCount + row.modelCount };
}
