/**
 * Chat queries. Every query takes the handle (`Database`, either dialect) and is awaited. `userId`, where a query
 * takes one, scopes it to that person's chats: another person's chat behaves exactly like a missing one. Left out
 * only by internal and admin callers that act across people.
 */
import { randomUUID } from 'node:crypto';
import { and, count, desc, eq, type SQL } from 'drizzle-orm';
import { type Database, withDb, withTransaction } from './client';
import { DbError } from './errors';
import { LOCAL_USER_ID } from './local-user';
import type { ChatRow } from './schema';
import { DEFAULT_CHAT_TITLE } from './title';

export type Chat = ChatRow;

export { DEFAULT_CHAT_TITLE, DERIVED_TITLE_LENGTH, deriveTitle } from './title';

/** Any title, including one typed by a person when renaming. */
export const MAX_TITLE_LENGTH = 200;

function normalizeTitle(title: string | undefined): string {
  const clean = (title ?? '').replace(/\s+/g, ' ').trim();
  if (clean === '') return DEFAULT_CHAT_TITLE;
  return Array.from(clean).slice(0, MAX_TITLE_LENGTH).join('');
}

export interface CreateChatInput {
  /** Client-generated id (the `useChat` id); a random UUID when omitted. */
  id?: string;
  title?: string;
  at?: Date;
  /** The owner; default the built-in loopback person. */
  userId?: string;
}

/** `id = ?`, and `user_id = ?` when scoped to a person. */
function chatWhere(d: Database, id: string, userId: string | undefined): SQL | undefined {
  const { chats } = d.t;
  return userId === undefined ? eq(chats.id, id) : and(eq(chats.id, id), eq(chats.userId, userId));
}

/** Creates a chat; throws `DbError('chat-exists')` if the id is taken (use `ensureChat` for "create if new"). */
export async function createChat(input: CreateChatInput, d: Database): Promise<Chat> {
  const id = input.id ?? randomUUID();
  if (id.trim() === '') throw new DbError('invalid-input', 'A chat id cannot be empty');
  const at = input.at ?? new Date();
  const { chats } = d.t;
  const [chat] = await withDb(d, (db) =>
    db
      .insert(chats)
      .values({
        id,
        userId: input.userId ?? LOCAL_USER_ID,
        title: normalizeTitle(input.title),
        createdAt: at,
        updatedAt: at,
      })
      .onConflictDoNothing()
      .returning(),
  );
  if (!chat) throw new DbError('chat-exists', `A chat with id ${id} already exists`);
  return chat;
}

/**
 * The chat with `input.id`, created with `input.title` if it does not exist yet (the first message of a chat).
 * An id that belongs to another person throws `chat-not-found`: never a takeover, and no hint that the id exists.
 */
export async function ensureChat(
  input: CreateChatInput & { id: string },
  d: Database,
): Promise<{ chat: Chat; created: boolean }> {
  const userId = input.userId ?? LOCAL_USER_ID;
  // One INSERT ... ON CONFLICT DO NOTHING, then a read: safe when two requests create the same id at once.
  return withTransaction(d, async (tx) => {
    try {
      return { chat: await createChat({ ...input, userId }, tx), created: true };
    } catch (error) {
      if (!(error instanceof DbError) || error.code !== 'chat-exists') throw error;
    }
    const existing = await getChat(input.id, tx, userId);
    if (!existing) throw new DbError('chat-not-found', `No chat with id ${input.id}`);
    return { chat: existing, created: false };
  });
}

export async function getChat(id: string, d: Database, userId?: string): Promise<Chat | null> {
  const rows = await withDb(d, (db) =>
    db
      .select()
      .from(d.t.chats)
      .where(chatWhere(d, id, userId)),
  );
  return rows[0] ?? null;
}

/** True when `id` names a chat (of `userId`, when given); lets writes fail with `chat-not-found`. */
export async function chatExists(id: string, d: Database, userId?: string): Promise<boolean> {
  const rows = await withDb(d, (db) =>
    db
      .select({ id: d.t.chats.id })
      .from(d.t.chats)
      .where(chatWhere(d, id, userId)),
  );
  return rows.length > 0;
}

/** The owner of a chat, or null when it does not exist (attributes activations and script runs to a person). */
export async function chatOwner(id: string, d: Database): Promise<string | null> {
  const rows = await withDb(d, (db) =>
    db.select({ userId: d.t.chats.userId }).from(d.t.chats).where(eq(d.t.chats.id, id)),
  );
  return rows[0]?.userId ?? null;
}

/** Most recently active first; only `userId`'s chats when given. */
export async function listChats(options: { limit?: number; userId?: string }, d: Database): Promise<Chat[]> {
  const { chats } = d.t;
  return withDb(d, (db) => {
    const query = db
      .select()
      .from(chats)
      .where(options.userId === undefined ? undefined : eq(chats.userId, options.userId))
      .orderBy(desc(chats.updatedAt), desc(chats.createdAt), desc(chats.id));
    return options.limit === undefined ? query : query.limit(options.limit);
  });
}

/** Renames without touching `updatedAt` (a rename is not activity). Null when the chat does not exist. */
export async function renameChat(id: string, title: string, d: Database, userId?: string): Promise<Chat | null> {
  const rows = await withDb(d, (db) =>
    db
      .update(d.t.chats)
      .set({ title: normalizeTitle(title) })
      .where(chatWhere(d, id, userId))
      .returning(),
  );
  return rows[0] ?? null;
}

/**
 * Renames only while the chat is still called `expected` (a title the app chose); false when it is not, e.g. a
 * person renamed it meanwhile, or the chat does not exist. One conditional UPDATE, so no rename slips in between.
 */
export async function renameChatIfTitle(
  id: string,
  expected: string,
  title: string,
  d: Database,
  userId?: string,
): Promise<boolean> {
  const rows = await withDb(d, (db) =>
    db
      .update(d.t.chats)
      .set({ title: normalizeTitle(title) })
      .where(and(chatWhere(d, id, userId), eq(d.t.chats.title, expected)))
      .returning({ id: d.t.chats.id }),
  );
  return rows.length > 0;
}

/** Sets the chat's model (`provider:model`; null: the app's default). Null when the chat does not exist. */
export async function setChatModel(
  id: string,
  model: string | null,
  d: Database,
  userId?: string,
): Promise<Chat | null> {
  const rows = await withDb(d, (db) =>
    db
      .update(d.t.chats)
      .set({ model })
      .where(chatWhere(d, id, userId))
      .returning(),
  );
  return rows[0] ?? null;
}

/** Deletes the chat; its messages and activations go with it (ON DELETE CASCADE). False when it did not exist. */
export async function deleteChat(id: string, d: Database, userId?: string): Promise<boolean> {
  const rows = await withDb(d, (db) =>
    db
      .delete(d.t.chats)
      .where(chatWhere(d, id, userId))
      .returning({ id: d.t.chats.id }),
  );
  return rows.length > 0;
}

/** Marks activity on the chat (moves it to the top of `listChats`). False when it does not exist. */
export async function touchChat(id: string, at: Date, d: Database): Promise<boolean> {
  const rows = await withDb(d, (db) =>
    db.update(d.t.chats).set({ updatedAt: at }).where(eq(d.t.chats.id, id)).returning({ id: d.t.chats.id }),
  );
  return rows.length > 0;
}

/**
 * Everything a person owns, for when an admin deletes the account: their chats (messages, activations and events
 * cascade; workspace files are the caller's), their name on script runs and approval answers,
 * their skill preferences, their own secrets and their MCP connections. Returns the ids
 * of the deleted chats so the caller can remove their workspaces.
 */
export async function deleteUserData(userId: string, d: Database): Promise<string[]> {
  const {
    chats,
    scriptRuns,
    permissionDecisions,
    permissionGrants,
    userSkillPrefs,
    personalTokens,
    secrets,
    mcpConnections,
  } = d.t;
  // `''` owns the shared secrets: no person's id is empty, and this must never be the way they go.
  if (!userId) throw new Error('deleteUserData: no user id');
  return withTransaction(d, async (tx) => {
    const deleted = await tx.db.delete(chats).where(eq(chats.userId, userId)).returning({ id: chats.id });
    await tx.db.delete(personalTokens).where(eq(personalTokens.userId, userId));
    await tx.db.delete(secrets).where(eq(secrets.ownerId, userId));
    await tx.db.delete(mcpConnections).where(eq(mcpConnections.userId, userId));
    await tx.db.update(scriptRuns).set({ userId: null }).where(eq(scriptRuns.userId, userId));
    await tx.db.update(permissionDecisions).set({ userId: null }).where(eq(permissionDecisions.userId, userId));
    await tx.db.delete(permissionGrants).where(eq(permissionGrants.userId, userId));
    await tx.db.delete(userSkillPrefs).where(eq(userSkillPrefs.userId, userId));
    return deleted.map((c) => c.id);
  });
}

/** How many chats a person has (the setup page offers to take over the loopback person's). */
export async function countChats(userId: string, d: Database): Promise<number> {
  const { chats } = d.t;
  const [row] = await withDb(d, (db) => db.select({ n: count() }).from(chats).where(eq(chats.userId, userId)));
  return Number(row?.n ?? 0);
}

/**
 * Gives everything of one person to another: chats (with their messages, activations and files, which hang off the
 * chat), their lines in the activation log, script runs and decisions, and their switches (skills, MCP servers). For the first
 * admin of a server that was used on loopback before: those chats belong to the built-in local person, whom nobody
 * can sign in as. Returns the number of chats moved.
 */
export async function transferUserData(fromUserId: string, toUserId: string, d: Database): Promise<number> {
  const { chats, activationEvents, scriptRuns, permissionDecisions, permissionGrants, userSkillPrefs } = d.t;
  return withTransaction(d, async (tx) => {
    const moved = await tx.db
      .update(chats)
      .set({ userId: toUserId })
      .where(eq(chats.userId, fromUserId))
      .returning({ id: chats.id });
    await tx.db.update(activationEvents).set({ userId: toUserId }).where(eq(activationEvents.userId, fromUserId));
    await tx.db.update(scriptRuns).set({ userId: toUserId }).where(eq(scriptRuns.userId, fromUserId));
    await tx.db.update(permissionDecisions).set({ userId: toUserId }).where(eq(permissionDecisions.userId, fromUserId));
    await tx.db.update(permissionGrants).set({ userId: toUserId }).where(eq(permissionGrants.userId, fromUserId));
    // The new person's own choice wins where both switched the same thing: those of the old person's are dropped.
    const theirs = await tx.db
      .select({ kind: userSkillPrefs.subjectKind, subject: userSkillPrefs.subject })
      .from(userSkillPrefs)
      .where(eq(userSkillPrefs.userId, toUserId));
    for (const { kind, subject } of theirs) {
      await tx.db
        .delete(userSkillPrefs)
        .where(
          and(
            eq(userSkillPrefs.userId, fromUserId),
            eq(userSkillPrefs.subjectKind, kind),
            eq(userSkillPrefs.subject, subject),
          ),
        );
    }
    await tx.db.update(userSkillPrefs).set({ userId: toUserId }).where(eq(userSkillPrefs.userId, fromUserId));
    await tx.db.delete(userSkillPrefs).where(eq(userSkillPrefs.userId, fromUserId));
    return moved.length;
  });
}
