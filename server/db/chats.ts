/**
 * Chat queries. Every query takes the connection last: the app passes its one connection (server/app.ts), tests their own.
 */
import { randomUUID } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import { DEFAULT_CHAT_TITLE } from '../chat/title';
import type { Db } from './client';
import { DbError } from './errors';
import { type ChatRow, chats } from './schema';

export type Chat = ChatRow;

export { DEFAULT_CHAT_TITLE, DERIVED_TITLE_LENGTH, deriveTitle } from '../chat/title';

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
}

/** Creates a chat; throws `DbError('chat-exists')` if the id is taken (use `ensureChat` for "create if new"). */
export function createChat(input: CreateChatInput = {}, db: Db): Chat {
  const id = input.id ?? randomUUID();
  if (id.trim() === '') throw new DbError('invalid-input', 'A chat id cannot be empty');
  const at = input.at ?? new Date();
  const chat = db
    .insert(chats)
    .values({ id, title: normalizeTitle(input.title), createdAt: at, updatedAt: at })
    .onConflictDoNothing()
    .returning()
    .get();
  if (!chat) throw new DbError('chat-exists', `A chat with id ${id} already exists`);
  return chat;
}

/** The chat with `input.id`, created with `input.title` if it does not exist yet (the first message of a chat). */
export function ensureChat(input: CreateChatInput & { id: string }, db: Db): { chat: Chat; created: boolean } {
  return db.transaction(
    () => {
      const existing = getChat(input.id, db);
      if (existing) return { chat: existing, created: false };
      return { chat: createChat(input, db), created: true };
    },
    { behavior: 'immediate' },
  );
}

export function getChat(id: string, db: Db): Chat | null {
  return db.select().from(chats).where(eq(chats.id, id)).get() ?? null;
}

/** True when `id` names a chat; lets writes fail with `chat-not-found` instead of a bare foreign key error. */
export function chatExists(id: string, db: Db): boolean {
  return db.select({ id: chats.id }).from(chats).where(eq(chats.id, id)).get() !== undefined;
}

/** Most recently active first. */
export function listChats(options: { limit?: number } = {}, db: Db): Chat[] {
  const query = db.select().from(chats).orderBy(desc(chats.updatedAt), desc(chats.createdAt), desc(chats.id));
  return options.limit === undefined ? query.all() : query.limit(options.limit).all();
}

/** Renames without touching `updatedAt` (a rename is not activity). Null when the chat does not exist. */
export function renameChat(id: string, title: string, db: Db): Chat | null {
  return (
    db
      .update(chats)
      .set({ title: normalizeTitle(title) })
      .where(eq(chats.id, id))
      .returning()
      .get() ?? null
  );
}

/**
 * Renames only while the chat is still called `expected` (a title the app chose); false when it is not, e.g. a
 * person renamed it meanwhile, or the chat does not exist. One conditional UPDATE, so no rename slips in between.
 */
export function renameChatIfTitle(id: string, expected: string, title: string, db: Db): boolean {
  return (
    db
      .update(chats)
      .set({ title: normalizeTitle(title) })
      .where(and(eq(chats.id, id), eq(chats.title, expected)))
      .run().changes > 0
  );
}

/** Sets the chat's model (`provider:model`; null: the app's default). Null when the chat does not exist. */
export function setChatModel(id: string, model: string | null, db: Db): Chat | null {
  return db.update(chats).set({ model }).where(eq(chats.id, id)).returning().get() ?? null;
}

/** Deletes the chat; its messages and activations go with it (ON DELETE CASCADE). False when it did not exist. */
export function deleteChat(id: string, db: Db): boolean {
  return db.delete(chats).where(eq(chats.id, id)).run().changes > 0;
}

/** Marks activity on the chat (moves it to the top of `listChats`). False when it does not exist. */
export function touchChat(id: string, at: Date = new Date(), db: Db): boolean {
  return db.update(chats).set({ updatedAt: at }).where(eq(chats.id, id)).run().changes > 0;
}
