import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireTurnLease, closeDb, type Database, openDb, releaseTurnLease, sqliteDatabase } from '../db';
import { createDbChatStore } from './db-store';
import { createRunningTurns } from './running/active-turns';
import type { ChatStore } from './store';
import { switchChatVersion } from './versions';

/** The running turns, as the app keeps them (`app.turns`). */
const turns = createRunningTurns();

let tmp: string;
let db: Database;
let store: ChatStore;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-versions-'));
  db = sqliteDatabase(openDb(path.join(tmp, 'db.sqlite')));
  store = createDbChatStore(db);
});
afterAll(() => {
  closeDb(db);
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function chatWithTwoAnswers(id: string) {
  await store.createChat({ id });
  await store.saveUserMessage(id, { id: `${id}-u`, role: 'user', parts: [{ type: 'text', text: 'hi' }] });
  await store.startAssistantMessage(id, `${id}-a1`);
  await store.finishAssistantMessage(`${id}-a1`, { parts: [{ type: 'text', text: 'one' }], status: 'complete' });
  await store.replaceTail(id, `${id}-u`, null);
  await store.startAssistantMessage(id, `${id}-a2`);
  await store.finishAssistantMessage(`${id}-a2`, { parts: [{ type: 'text', text: 'two' }], status: 'complete' });
}

describe('switchChatVersion (POST /api/chats/:id/versions)', () => {
  it('is a 409 while another instance answers in the chat (its lease), and works once it ends', async () => {
    await chatWithTwoAnswers('s-lease');
    expect(await acquireTurnLease(db, { chatId: 's-lease', instanceId: 'other', expiryMs: 30_000 })).toBe(true);
    await expect(
      switchChatVersion(store, turns, 's-lease', { parentId: 's-lease-u', version: 1 }),
    ).rejects.toMatchObject({
      code: 'conflict:chat',
    });
    expect((await store.getMessages('s-lease')).map((m) => m.id)).toEqual(['s-lease-u', 's-lease-a2']);
    await releaseTurnLease(db, 's-lease', 'other');
    const view = await switchChatVersion(store, turns, 's-lease', { parentId: 's-lease-u', version: 1 });
    expect(view.messages.map((m) => m.id)).toEqual(['s-lease-u', 's-lease-a1']);
  });

  it('shows the asked version and answers with the messages and versions', async () => {
    await chatWithTwoAnswers('s1');
    const view = await switchChatVersion(store, turns, 's1', { parentId: 's1-u', version: 1 });
    expect(view.messages.map((m) => m.id)).toEqual(['s1-u', 's1-a1']);
    expect(view.versions).toEqual([{ parentId: 's1-u', index: 1, count: 2 }]);
  });

  it('refuses bad bodies, unknown versions, other people and a running answer', async () => {
    await chatWithTwoAnswers('s2');
    await expect(switchChatVersion(store, turns, 's2', { parentId: 's2-u' })).rejects.toMatchObject({
      code: 'bad_request:chat',
    });
    await expect(switchChatVersion(store, turns, 's2', { parentId: 's2-u', version: 9 })).rejects.toMatchObject({
      code: 'invalid-input',
    });
    const other = createDbChatStore(db, 'someone-else');
    await expect(switchChatVersion(other, turns, 's2', { parentId: 's2-u', version: 1 })).rejects.toMatchObject({
      code: 'not_found:chat',
    });
    const turn = turns.claim('s2');
    try {
      await expect(switchChatVersion(store, turns, 's2', { parentId: 's2-u', version: 1 })).rejects.toMatchObject({
        code: 'conflict:chat',
      });
    } finally {
      turn.release();
    }
    expect((await store.getMessages('s2')).map((m) => m.id)).toEqual(['s2-u', 's2-a2']);
  });
});
