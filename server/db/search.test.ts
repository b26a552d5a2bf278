import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { UIMessage } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChat, deleteChat, renameChat, touchChat } from './chats';
import { type Db, openDb } from './client';
import { deleteMessagesAfter, finishAssistantMessage, saveUserMessage, startAssistantMessage } from './messages';
import { ftsQuery, searchChats } from './search';

let dir: string;
let db: Db;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-search-'));
  db = openDb(path.join(dir, 'chat.db'));
});
afterEach(() => {
  db.$client.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });
const ids = (q: string) => searchChats(q, {}, db).map((h) => h.chat.id);

describe('searchChats', () => {
  it('finds chats by title and by message text, by word prefix, newest first', () => {
    createChat({ id: 'a', title: 'Quarterly report', at: new Date(1000) }, db);
    createChat({ id: 'b', title: 'Other', at: new Date(2000) }, db);
    saveUserMessage('b', user('m1', 'Please convert this CSV into JSON'), db);
    createChat({ id: 'c', title: 'Nothing here', at: new Date(3000) }, db);
    expect(ids('quarter')).toEqual(['a']);
    expect(ids('csv json')).toEqual(['b']);
    expect(ids('REPORT')).toEqual(['a']);
    expect(ids('csv report')).toEqual([]);
    touchChat('a', new Date(5000), db);
    saveUserMessage('a', user('m2', 'the report as csv please'), db);
    expect(ids('csv')).toEqual(['a', 'b']);
    expect(searchChats('csv', {}, db)[1]!.snippet).toContain('CSV into JSON');
  });

  it('follows renames, answers, regenerate and deletes', () => {
    createChat({ id: 'a', title: 'Old name' }, db);
    renameChat('a', 'New name', db);
    expect(ids('old')).toEqual([]);
    expect(ids('new')).toEqual(['a']);
    saveUserMessage('a', user('u1', 'hello'), db);
    startAssistantMessage('a', 'r1', {}, db);
    expect(ids('zebra')).toEqual([]);
    finishAssistantMessage('r1', { parts: [{ type: 'text', text: 'a zebra answer' }], status: 'complete' }, db);
    expect(ids('zebra')).toEqual(['a']);
    deleteMessagesAfter('a', 'u1', {}, db);
    expect(ids('zebra')).toEqual([]);
    deleteChat('a', db);
    expect(ids('hello')).toEqual([]);
    expect(ids('new')).toEqual([]);
  });

  it('never interprets FTS syntax typed into the box', () => {
    createChat({ id: 'a', title: 'NEAR AND OR "quotes"' }, db);
    expect(ftsQuery('a" OR * NEAR(')).toBe('"a"* "OR"* "NEAR"*');
    expect(ftsQuery('  -*() ')).toBeNull();
    expect(ids('"quotes')).toEqual(['a']);
    expect(ids('*')).toEqual([]);
  });
});
