/**
 * Message queries: the one persistence path for chat messages. The flow of a turn:
 * `saveUserMessage` -> `startAssistantMessage` (row `streaming`, before calling the model) ->
 * `finishAssistantMessage` (on end, stop or error). Rows left `streaming` by a crash are marked `interrupted`
 * when the database is next opened (`recovery.ts`).
 */
import type { UIMessage } from 'ai';
import { and, asc, desc, eq, gt, gte, lt, max } from 'drizzle-orm';
import { z } from 'zod';
import { chatExists } from './chats';
import { type Database, lockChat, withDb, withTransaction } from './client';
import { DbError } from './errors';
import { MESSAGE_ROLES, type MessageRole, type MessageRow, type MessageStatus } from './schema';

export type MessagePart = UIMessage['parts'][number];

/** A message as stored: the AI SDK message plus what the UI needs to show an unfinished or failed answer. */
export interface StoredMessage<M extends UIMessage = UIMessage> {
  message: M;
  chatId: string;
  seq: number;
  status: MessageStatus;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
  /**
   * Set when the stored JSON could not be read back. Unreadable `parts` are replaced by one text part saying so
   * (the chat still loads and the gap is visible); unreadable parts inside a valid array are dropped; unreadable
   * metadata is dropped.
   */
  readError?: string;
}

/**
 * Messages of a chat, in order. Parts are checked only for shape (an array of objects with a string `type`), not
 * against the tool schemas: run the AI SDK's `validateUIMessages` where that matters. `M` lets a caller name its
 * own message type (`UIMessage<Meta, Data, Tools>`); it is not checked.
 */
export async function getMessages<M extends UIMessage = UIMessage>(chatId: string, d: Database): Promise<M[]> {
  return (await getMessageRecords<M>(chatId, d)).map((record) => record.message);
}

/** Like `getMessages`, with status, error and timestamps: for showing interrupted or failed answers. */
export async function getMessageRecords<M extends UIMessage = UIMessage>(
  chatId: string,
  d: Database,
): Promise<StoredMessage<M>[]> {
  const { messages } = d.t;
  const rows = await withDb(d, (db) =>
    db.select().from(messages).where(eq(messages.chatId, chatId)).orderBy(asc(messages.seq)),
  );
  return rows.map((row) => toStoredMessage<M>(row));
}

/**
 * Where a page of a chat's messages starts (a long chat is shown a page at a time): the newest ones
 * (`last`), the ones before or after a message (not including it; after `''`: from the chat's start), or from a
 * message on (including it).
 */
export type MessageCursor =
  | { kind: 'last' }
  | { kind: 'before'; id: string }
  | { kind: 'after'; id: string }
  | { kind: 'from'; id: string };

export interface MessagePageRecords<M extends UIMessage = UIMessage> {
  /** Oldest first. */
  records: StoredMessage<M>[];
  /** Messages exist before the first record (before the cursor when there is none). */
  hasEarlier: boolean;
  /** Messages exist after the last record (after the cursor when there is none). */
  hasLater: boolean;
}

/**
 * At most `limit` messages of the chat next to `cursor`, oldest first. Null when the cursor's message is not in the
 * chat (a stale or foreign id). Callers check that the chat is the person's (the store does).
 */
export async function getMessagePage<M extends UIMessage = UIMessage>(
  chatId: string,
  cursor: MessageCursor,
  limit: number,
  d: Database,
): Promise<MessagePageRecords<M> | null> {
  const { messages } = d.t;
  const inChat = eq(messages.chatId, chatId);
  let at: number | null = null;
  // After '' is from the chat's start (the root parent of versions.ts): positions start at 1.
  if (cursor.kind === 'after' && cursor.id === '') at = 0;
  else if (cursor.kind !== 'last') {
    const [row] = await withDb(d, (db) =>
      db
        .select({ seq: messages.seq })
        .from(messages)
        .where(and(inChat, eq(messages.id, cursor.id))),
    );
    if (!row) return null;
    at = row.seq;
  }
  const newestFirst = cursor.kind === 'last' || cursor.kind === 'before';
  const bound =
    at === null
      ? undefined
      : cursor.kind === 'before'
        ? lt(messages.seq, at)
        : cursor.kind === 'after'
          ? gt(messages.seq, at)
          : gte(messages.seq, at);
  const rows = await withDb(d, (db) =>
    db
      .select()
      .from(messages)
      .where(bound ? and(inChat, bound) : inChat)
      .orderBy(newestFirst ? desc(messages.seq) : asc(messages.seq))
      .limit(limit),
  );
  if (newestFirst) rows.reverse();
  // An empty page sits at its cursor; without one, the chat is empty.
  if (rows.length === 0 && at === null) return { records: [], hasEarlier: false, hasLater: false };
  const first = rows[0]?.seq ?? at ?? 0;
  const last = rows.at(-1)?.seq ?? at ?? 0;
  const exists = async (where: ReturnType<typeof and>) =>
    (await withDb(d, (db) => db.select({ id: messages.id }).from(messages).where(where).limit(1))).length > 0;
  const [hasEarlier, hasLater] = await Promise.all([
    exists(and(inChat, lt(messages.seq, first))),
    exists(and(inChat, gt(messages.seq, last))),
  ]);
  return { records: rows.map((row) => toStoredMessage<M>(row)), hasEarlier, hasLater };
}

export interface SaveMessageOptions {
  status?: MessageStatus;
  error?: string | null;
  at?: Date;
}

/**
 * Inserts `message` at the end of the chat, or replaces the stored message with the same id in place (same
 * position, same `createdAt`): an edited user message, or an assistant message sent back with tool approvals.
 * Marks activity on the chat. Throws `chat-not-found`, or `message-conflict` when the id belongs to another chat.
 */
export async function saveMessage(
  chatId: string,
  message: UIMessage,
  options: SaveMessageOptions,
  d: Database,
): Promise<StoredMessage> {
  const at = options.at ?? new Date();
  const values = {
    role: message.role,
    parts: serialize(message.parts, 'parts'),
    metadata: message.metadata === undefined ? null : serialize(message.metadata, 'metadata'),
    status: options.status ?? 'complete',
    error: options.error ?? null,
    updatedAt: at,
  } satisfies Partial<MessageRow>;
  return withTransaction(d, async (tx) => {
    const { messages, chats } = tx.t;
    const seq = await claimPosition(tx, chatId, message.id);
    const [row] = await tx.db
      .insert(messages)
      .values({ id: message.id, chatId, seq, createdAt: at, ...values })
      .onConflictDoUpdate({ target: messages.id, set: values })
      .returning();
    await tx.db.update(chats).set({ updatedAt: at }).where(eq(chats.id, chatId));
    return toStoredMessage(row!);
  });
}

/** `saveMessage` for the person's message, which is always complete. */
export async function saveUserMessage(chatId: string, message: UIMessage, d: Database): Promise<StoredMessage> {
  if (message.role !== 'user') {
    throw new DbError('invalid-input', `saveUserMessage expects a user message, got ${message.role}`);
  }
  return saveMessage(chatId, message, { status: 'complete' }, d);
}

/**
 * Records an answer about to stream, before the model is called, so a crash leaves a trace. A new id gets an
 * empty assistant row at the end of the chat. An existing assistant id in the same chat (the AI SDK continues the
 * last assistant message after tool approvals) keeps its parts and position and goes back to `streaming`.
 */
export async function startAssistantMessage(
  chatId: string,
  id: string,
  options: { at?: Date; metadata?: unknown },
  d: Database,
): Promise<StoredMessage> {
  const at = options.at ?? new Date();
  const metadata = options.metadata === undefined ? undefined : serialize(options.metadata, 'metadata');
  return withTransaction(d, async (tx) => {
    const { messages, chats } = tx.t;
    const [existing] = await tx.db.select({ role: messages.role }).from(messages).where(eq(messages.id, id));
    if (existing && existing.role !== 'assistant') {
      throw new DbError('message-conflict', `Message ${id} exists and is a ${existing.role} message`);
    }
    const seq = await claimPosition(tx, chatId, id);
    const restart = { status: 'streaming', error: null, updatedAt: at, ...(metadata && { metadata }) } as const;
    const [row] = await tx.db
      .insert(messages)
      .values({ id, chatId, seq, role: 'assistant', parts: '[]', metadata, createdAt: at, ...restart })
      .onConflictDoUpdate({ target: messages.id, set: restart })
      .returning();
    await tx.db.update(chats).set({ updatedAt: at }).where(eq(chats.id, chatId));
    return toStoredMessage(row!);
  });
}

export interface FinishAssistantMessage {
  parts: UIMessage['parts'];
  status: Exclude<MessageStatus, 'streaming'>;
  error?: string | null;
  /** Replaces the stored metadata when given. */
  metadata?: unknown;
  at?: Date;
}

/**
 * Writes the final parts and status of an answer. Null when the message is gone (its chat was deleted while it
 * streamed): the caller has nothing left to save, which is not an error.
 */
export async function finishAssistantMessage(
  id: string,
  result: FinishAssistantMessage,
  d: Database,
): Promise<StoredMessage | null> {
  const at = result.at ?? new Date();
  return withTransaction(d, async (tx) => {
    const { messages, chats } = tx.t;
    const [row] = await tx.db
      .update(messages)
      .set({
        parts: serialize(result.parts, 'parts'),
        status: result.status,
        error: result.error ?? null,
        updatedAt: at,
        ...(result.metadata !== undefined && { metadata: serialize(result.metadata, 'metadata') }),
      })
      .where(eq(messages.id, id))
      .returning();
    if (!row) return null;
    await tx.db.update(chats).set({ updatedAt: at }).where(eq(chats.id, row.chatId));
    return toStoredMessage(row);
  });
}

/**
 * Stores an answer's parts so far while it streams. Only a row still `streaming` is written, so a late progress
 * write never overwrites the final parts; false when nothing was written.
 */
export async function saveAnswerProgress(
  id: string,
  parts: UIMessage['parts'],
  d: Database,
  at = new Date(),
): Promise<boolean> {
  const json = serialize(parts, 'parts');
  const { messages } = d.t;
  const rows = await withDb(d, (db) =>
    db
      .update(messages)
      .set({ parts: json, updatedAt: at })
      .where(and(eq(messages.id, id), eq(messages.status, 'streaming')))
      .returning({ id: messages.id }),
  );
  return rows.length > 0;
}

/**
 * Replaces a message's parts only when they are still `expected` (compare-and-set in one UPDATE: of two approval
 * answers read from the same stored answer, only the first write wins). False when the stored parts have changed.
 */
export async function replacePartsIfUnchanged(
  chatId: string,
  message: UIMessage,
  expected: UIMessage['parts'],
  d: Database,
  at = new Date(),
): Promise<boolean> {
  const json = serialize(message.parts, 'parts');
  const before = serialize(expected, 'parts');
  const { messages } = d.t;
  const rows = await withDb(d, (db) =>
    db
      .update(messages)
      .set({ parts: json, updatedAt: at })
      .where(and(eq(messages.id, message.id), eq(messages.chatId, chatId), eq(messages.parts, before)))
      .returning({ id: messages.id }),
  );
  return rows.length > 0;
}

/**
 * Deletes the messages after `messageId` in its chat (and `messageId` itself with `inclusive`), returning how many
 * went. For regenerate: pass the user message being answered again to drop the old answer. 0 when `messageId`
 * is not in the chat.
 */
export async function deleteMessagesAfter(
  chatId: string,
  messageId: string,
  options: { inclusive?: boolean },
  d: Database,
): Promise<number> {
  return withTransaction(d, async (tx) => {
    const { messages } = tx.t;
    await lockChat(tx, chatId);
    const [anchor] = await tx.db
      .select({ seq: messages.seq })
      .from(messages)
      .where(and(eq(messages.id, messageId), eq(messages.chatId, chatId)));
    if (!anchor) return 0;
    const from = options.inclusive ? gte(messages.seq, anchor.seq) : gt(messages.seq, anchor.seq);
    const gone = await tx.db
      .delete(messages)
      .where(and(eq(messages.chatId, chatId), from))
      .returning({ id: messages.id });
    return gone.length;
  });
}

/**
 * The position for message `id` in `chatId`: its current one when it is already there, else after the last.
 * Runs inside a transaction and locks the chat first (read-then-write: on PostgreSQL two writers would otherwise
 * read the same max(seq)); the unique index (chat_id, seq) is the backstop.
 */
async function claimPosition(tx: Database, chatId: string, id: string): Promise<number> {
  if (id === '') throw new DbError('invalid-input', 'A message id cannot be empty');
  const { messages } = tx.t;
  await lockChat(tx, chatId);
  if (!(await chatExists(chatId, tx))) throw new DbError('chat-not-found', `No chat with id ${chatId}`);
  const [existing] = await tx.db
    .select({ chatId: messages.chatId, seq: messages.seq })
    .from(messages)
    .where(eq(messages.id, id));
  if (existing) {
    // Ids come from the client: never let one move or overwrite a message of another chat.
    if (existing.chatId !== chatId) throw new DbError('message-conflict', `Message ${id} belongs to another chat`);
    return existing.seq;
  }
  const [last] = await tx.db
    .select({ seq: max(messages.seq) })
    .from(messages)
    .where(eq(messages.chatId, chatId));
  return (last?.seq ?? 0) + 1;
}

function serialize(value: unknown, what: string): string {
  const json = JSON.stringify(value);
  // JSON.stringify returns undefined for undefined, functions and symbols: storing "undefined" would be corrupt.
  if (json === undefined) throw new DbError('invalid-input', `Message ${what} cannot be stored as JSON`);
  return json;
}

// Shape only: enough for the UI and `convertToModelMessages` not to crash on a corrupt row.
const partSchema = z.looseObject({ type: z.string().min(1) });

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function readParts(text: string): { parts: MessagePart[]; problem?: string } {
  const parsed = parseJson(text);
  if (!parsed.ok || !Array.isArray(parsed.value)) {
    const problem = parsed.ok ? 'stored parts are not an array' : 'stored parts are not valid JSON';
    return { parts: [{ type: 'text', text: `[This message could not be read: ${problem}.]` }], problem };
  }
  const valid = parsed.value.filter((part) => partSchema.safeParse(part).success);
  const dropped = parsed.value.length - valid.length;
  // Checked for shape above; the full part types are the AI SDK's to validate (`validateUIMessages`).
  const parts = valid as MessagePart[];
  return dropped > 0 ? { parts, problem: `${dropped} unreadable part(s) dropped` } : { parts };
}

function toStoredMessage<M extends UIMessage = UIMessage>(row: MessageRow): StoredMessage<M> {
  const problems: string[] = [];
  const { parts, problem } = readParts(row.parts);
  if (problem) problems.push(problem);

  let metadata: unknown;
  if (row.metadata !== null) {
    const parsed = parseJson(row.metadata);
    if (parsed.ok) metadata = parsed.value;
    else problems.push('stored metadata is not valid JSON');
  }

  // Only our code writes `role`; anything else means a hand-edited row, shown as an assistant message.
  const role: MessageRole = (MESSAGE_ROLES as readonly string[]).includes(row.role) ? row.role : 'assistant';
  if (role !== row.role) problems.push(`unknown role ${JSON.stringify(row.role)}`);

  const message: UIMessage = { id: row.id, role, parts, ...(metadata !== undefined && { metadata }) };
  const stored: StoredMessage<M> = {
    // The caller's message type is a claim about the tool and data parts we cannot check here (see getMessages).
    message: message as M,
    chatId: row.chatId,
    seq: row.seq,
    status: row.status,
    error: row.error,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
  if (problems.length > 0) {
    stored.readError = problems.join('; ');
    console.warn(`[db] message ${row.id} in chat ${row.chatId}: ${stored.readError}`);
  }
  return stored;
}
