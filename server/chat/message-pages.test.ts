/**
 * A long chat a page at a time. The page starts with the newest page only; a search hit opens a window
 * above it; a version switch answers with the messages from its group on; pages stop at a byte budget.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, type Database, openDb, sqliteDatabase } from '../db';
import { createDbChatStore } from './db-store';
import {
  budgetPage,
  FIRST_PAGE_LIMIT,
  PAGE_BUDGET_BYTES,
  PAGE_LIMIT,
  parseMessagePageQuery,
  withinBudget,
} from './message-pages';
import { createRunningTurns } from './running/active-turns';
import type { ChatStore } from './store';
import { switchChatVersion } from './versions';
import type { ChatMessage } from './wire-types';

let tmp: string;
let db: Database;
let store: ChatStore;

const ids = (messages: ChatMessage[]) => messages.map((m) => m.id);
const range = (from: number, to: number, prefix = 'm') =>
  Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${from + i}`);

/** `count` messages `${prefix}1`... (ids are global), person and assistant in turn. */
async function longChat(id: string, count: number, prefix = 'm', text = (n: number) => `message ${n}`) {
  await store.createChat({ id });
  for (let n = 1; n <= count; n++) {
    const messageId = `${prefix}${n}`;
    if (n % 2 === 1) {
      await store.saveUserMessage(id, { id: messageId, role: 'user', parts: [{ type: 'text', text: text(n) }] });
    } else {
      await store.startAssistantMessage(id, messageId);
      await store.finishAssistantMessage(messageId, { parts: [{ type: 'text', text: text(n) }], status: 'complete' });
    }
  }
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-history-'));
  db = sqliteDatabase(openDb(path.join(tmp, 'db.sqlite')));
  store = createDbChatStore(db);
  await longChat('long', 120);
});
afterAll(() => {
  closeDb(db);
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the chat page of a long chat', () => {
  it('starts with the newest page only, and says there is more', async () => {
    const view = (await store.loadChatPage('long'))!;
    expect(ids(view.messages)).toEqual(range(121 - FIRST_PAGE_LIMIT, 120));
    expect(view.earlier).toEqual({ messages: [], hasEarlier: true, gap: false });
  });

  it('opens at a search hit: a window from two messages before it, with a gap above the newest page', async () => {
    const view = (await store.loadChatPage('long', { around: 'm10' }))!;
    expect(ids(view.earlier.messages)).toEqual(range(8, 27));
    expect(view.earlier).toMatchObject({ hasEarlier: true, gap: true });
    expect(ids(view.messages)).toEqual(range(91, 120));
  });

  it('joins the window to the newest page when they meet, and ignores a hit already shown or unknown', async () => {
    const near = (await store.loadChatPage('long', { around: 'm80' }))!;
    expect(ids(near.earlier.messages)).toEqual(range(78, 90));
    expect(near.earlier).toMatchObject({ hasEarlier: true, gap: false });
    const adjacent = (await store.loadChatPage('long', { around: 'm73' }))!;
    expect(ids(adjacent.earlier.messages)).toEqual(range(71, 90));
    expect(adjacent.earlier.gap).toBe(false);
    for (const around of ['m110', 'nope']) {
      const view = (await store.loadChatPage('long', { around }))!;
      expect(view.earlier).toEqual({ messages: [], hasEarlier: true, gap: false });
    }
    expect(await store.loadChatPage('long', { around: 'm1' })).toMatchObject({
      earlier: { hasEarlier: false, gap: true },
    });
  });

  it("is another person's chat: null", async () => {
    expect(await createDbChatStore(db, 'someone-else').loadChatPage('long')).toBeNull();
  });
});

describe('pages of a long chat', () => {
  it('walks back to the first message', async () => {
    const seen: string[] = [];
    let page = (await store.loadMessagePage('long', { kind: 'last' }, 50))!;
    seen.unshift(...ids(page.messages));
    while (page.hasEarlier) {
      page = (await store.loadMessagePage('long', { kind: 'before', id: page.messages[0]!.id }, 50))!;
      seen.unshift(...ids(page.messages));
    }
    expect(seen).toEqual(range(1, 120));
  });

  it('stops at the byte budget, keeping the end it reads towards, and always holds one message', async () => {
    const big = (n: number) => `${n} ${'x'.repeat(Math.floor(PAGE_BUDGET_BYTES / 4))}`;
    await longChat('big', 12, 'b', big);
    const newest = (await store.loadMessagePage('big', { kind: 'last' }, 50))!;
    expect(ids(newest.messages)).toEqual(['b10', 'b11', 'b12']);
    expect(newest.hasEarlier).toBe(true);
    const after = (await store.loadMessagePage('big', { kind: 'after', id: 'b1' }, 50))!;
    expect(ids(after.messages)).toEqual(['b2', 'b3', 'b4']);
    expect(after.hasLater).toBe(true);
    const huge = { id: 'h', role: 'user', parts: [{ type: 'text', text: 'y'.repeat(PAGE_BUDGET_BYTES * 2) }] };
    const one = budgetPage({ messages: [huge as ChatMessage], hasEarlier: false, hasLater: false }, { kind: 'last' });
    expect(ids(one.messages)).toEqual(['h']);
  });

  it('withinBudget keeps whole items from the chosen end', () => {
    expect(withinBudget([1, 2, 3, 4], (n) => n, 7, 'newest')).toEqual({ kept: [3, 4], cut: true });
    expect(withinBudget([1, 2, 3, 4], (n) => n, 6, 'oldest')).toEqual({ kept: [1, 2, 3], cut: true });
    expect(withinBudget([1, 2], (n) => n, 10, 'oldest')).toEqual({ kept: [1, 2], cut: false });
    expect(withinBudget([9], (n) => n, 1, 'newest')).toEqual({ kept: [9], cut: false });
  });

  it("says not_found:message for a cursor not in the chat, and null for another person's chat", async () => {
    await expect(store.loadMessagePage('long', { kind: 'before', id: 'nope' }, 5)).rejects.toMatchObject({
      code: 'not_found:message',
    });
    expect(await createDbChatStore(db, 'someone-else').loadMessagePage('long', { kind: 'last' }, 5)).toBeNull();
  });
});

describe('the page query', () => {
  const query = (q: string) => parseMessagePageQuery(new URLSearchParams(q));

  it('reads a cursor and a limit', () => {
    expect(query('')).toEqual({ cursor: { kind: 'last' }, limit: PAGE_LIMIT });
    expect(query('before=m5&limit=10')).toEqual({ cursor: { kind: 'before', id: 'm5' }, limit: 10 });
    expect(query('after=m5')).toEqual({ cursor: { kind: 'after', id: 'm5' }, limit: PAGE_LIMIT });
  });

  it.each([
    'limit=0',
    'limit=201',
    'limit=abc',
    'limit=2.5',
    'before=',
    `before=${'x'.repeat(101)}`,
    'before=a&after=b',
    'before=a&before=b',
    'around=m5',
    'cursor=m5',
  ])('refuses %s with 400 bad_request:messages', (q) => {
    expect(() => query(q)).toThrow(expect.objectContaining({ code: 'bad_request:messages', status: 400 }));
  });
});

describe('a version switch in a long chat', () => {
  it('answers with the newest page and the messages from the group on, not the whole chat', async () => {
    await longChat('switch', 120, 's');
    // Answer s10 again: the old tail (s10..s120) becomes version 1, the new answer version 2.
    await store.replaceTail('switch', 's9', null);
    await store.startAssistantMessage('switch', 'again');
    await store.finishAssistantMessage('again', { parts: [{ type: 'text', text: 'again' }], status: 'complete' });
    const back = await switchChatVersion(store, createRunningTurns(), 'switch', { parentId: 's9', version: 1 });
    expect(back.versions).toEqual([{ parentId: 's9', index: 1, count: 2 }]);
    expect(ids(back.earlier.messages)).toEqual(range(10, 59, 's'));
    expect(back.earlier.gap).toBe(true);
    expect(ids(back.messages)).toEqual(range(91, 120, 's'));
    const forth = await switchChatVersion(store, createRunningTurns(), 'switch', { parentId: 's9', version: 2 });
    expect(ids(forth.earlier.messages)).toEqual([]);
    expect(ids(forth.messages)).toEqual([...range(1, 9, 's'), 'again']);
  });
});
