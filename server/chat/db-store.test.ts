/** The database chat store: each person sees their own chats, and a turn checks a chat's owner once. */
import type SqliteDriver from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDb, type Database, openDb, sqliteDatabase } from '../db';
import { createDbChatStore } from './db-store';

const OWNER_CHECK = /^select "id" from "chats" where \("chats"\."id" = \? and "chats"\."user_id" = \?\)$/;

let db: Database;
let ownerChecks: number;

beforeEach(() => {
  const native = openDb(':memory:');
  const client: SqliteDriver.Database = native.$client;
  const prepare = client.prepare;
  ownerChecks = 0;
  client.prepare = ((source: string) => {
    if (OWNER_CHECK.test(source)) ownerChecks++;
    return prepare(source);
  }) as typeof prepare;
  db = sqliteDatabase(native);
});
afterEach(() => closeDb(db));

const hello = (id: string) => ({ id, role: 'user' as const, parts: [{ type: 'text' as const, text: 'hello' }] });

describe('createDbChatStore', () => {
  it("checks a chat's owner once per store, then reads and writes without asking again", async () => {
    const store = createDbChatStore(db, 'ada');
    await store.createChat({ id: 'c1' });
    ownerChecks = 0;
    expect(await store.getMessages('c1')).toEqual([]);
    await store.saveUserMessage('c1', hello('u1'));
    await store.startAssistantMessage('c1', 'a1');
    expect(await store.getActivations('c1')).toEqual([]);
    expect(ownerChecks).toBe(1);
    // The turn reads the chat first: then no separate check at all.
    const next = createDbChatStore(db, 'ada');
    ownerChecks = 0;
    expect(await next.getChat('c1')).toMatchObject({ id: 'c1' });
    expect((await next.getMessages('c1')).map((m) => m.id)).toEqual(['u1', 'a1']);
    await next.saveUserMessage('c1', hello('u2'));
    expect(ownerChecks).toBe(0);
  });

  it("never lets a person read or write another's chat", async () => {
    await createDbChatStore(db, 'ada').createChat({ id: 'c1' });
    const other = createDbChatStore(db, 'bob');
    expect(await other.getChat('c1')).toBeNull();
    expect(await other.getMessages('c1')).toEqual([]);
    await expect(other.saveUserMessage('c1', hello('u1'))).rejects.toMatchObject({ code: 'chat-not-found' });
    // Asked again: a chat that is not yours is not remembered as one that is.
    await expect(other.startAssistantMessage('c1', 'a1')).rejects.toMatchObject({ code: 'chat-not-found' });
  });

  it('refuses writes to a chat deleted after it was checked', async () => {
    const store = createDbChatStore(db, 'ada');
    await store.createChat({ id: 'c1' });
    expect(await store.getChat('c1')).not.toBeNull();
    await createDbChatStore(db, 'ada').deleteChat('c1');
    await expect(store.saveUserMessage('c1', hello('u1'))).rejects.toMatchObject({ code: 'chat-not-found' });
    expect(await store.getMessages('c1')).toEqual([]);
  });
});
