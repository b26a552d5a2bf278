import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { UIMessage } from 'ai';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  activationCountsBySkill,
  countActivationEvents,
  getChatActivations,
  listActivationEvents,
  recordActivation,
} from './activations';
import {
  createChat,
  DEFAULT_CHAT_TITLE,
  deleteChat,
  deriveTitle,
  ensureChat,
  getChat,
  listChats,
  renameChat,
  touchChat,
} from './chats';
import { closeDb, type Db, getOpenReport, openDb } from './client';
import { DbError } from './errors';
import {
  deleteMessagesAfter,
  finishAssistantMessage,
  getMessageRecords,
  getMessages,
  saveMessage,
  saveUserMessage,
  startAssistantMessage,
} from './messages';

let dir: string;
let dbFile: string;
let db: Db;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-db-'));
  dbFile = path.join(dir, 'nested', 'chat.db');
  db = openDb(dbFile);
});

afterEach(() => {
  closeDb(db);
  fs.rmSync(dir, { recursive: true, force: true });
});

const t = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

function userMessage(id: string, text: string): UIMessage {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

describe('opening', () => {
  it('creates the folder and applies the migrations to a fresh file', () => {
    expect(fs.existsSync(dbFile)).toBe(true);
    const tables = db.$client
      .prepare("select name from sqlite_master where type = 'table' order by name")
      .pluck()
      .all();
    expect(tables).toEqual(
      expect.arrayContaining(['__drizzle_migrations', 'activation_events', 'activations', 'chats', 'messages']),
    );
    expect(db.$client.prepare('select count(*) from __drizzle_migrations').pluck().get()).toBeGreaterThan(0);
  });

  it('turns on WAL, foreign keys, FULL sync and a busy timeout', () => {
    expect(db.$client.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.$client.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.$client.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.$client.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(getOpenReport(db)).toEqual({ path: dbFile, journalMode: 'wal', interruptedMessages: 0 });
  });

  it('reopens an existing file without reapplying migrations and keeps the data', () => {
    createChat({ id: 'c1', title: 'Kept' }, db);
    closeDb(db);
    db = openDb(dbFile);
    expect(getChat('c1', db)?.title).toBe('Kept');
  });

  it('works in memory', () => {
    const mem = openDb(':memory:');
    try {
      createChat({ id: 'm' }, mem);
      expect(getOpenReport(mem)?.journalMode).toBe('memory');
      expect(listChats({}, mem)).toHaveLength(1);
    } finally {
      closeDb(mem);
    }
  });

  it('names the folder it could not find migrations in', () => {
    expect(() => openDb(path.join(dir, 'other.db'), { migrationsFolder: dir })).toThrow(/_journal\.json/);
  });
});

describe('chats', () => {
  it('creates with a generated id and the default title', () => {
    const chat = createChat({}, db);
    expect(chat.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(chat.title).toBe(DEFAULT_CHAT_TITLE);
    expect(chat.createdAt).toBeInstanceOf(Date);
    expect(getChat(chat.id, db)).toEqual(chat);
    expect(getChat('missing', db)).toBeNull();
  });

  it('refuses a taken id, while ensureChat returns the existing chat', () => {
    createChat({ id: 'c1', title: 'First' }, db);
    expect(() => createChat({ id: 'c1' }, db)).toThrow(DbError);
    expect(ensureChat({ id: 'c1', title: 'Other' }, db)).toMatchObject({ created: false, chat: { title: 'First' } });
    expect(ensureChat({ id: 'c2', title: 'Second' }, db)).toMatchObject({ created: true, chat: { title: 'Second' } });
  });

  it('lists the most recently active first', () => {
    createChat({ id: 'old', at: t(0) }, db);
    createChat({ id: 'mid', at: t(1000) }, db);
    createChat({ id: 'new', at: t(2000) }, db);
    expect(listChats({}, db).map((c) => c.id)).toEqual(['new', 'mid', 'old']);
    touchChat('old', t(3000), db);
    expect(listChats({}, db).map((c) => c.id)).toEqual(['old', 'new', 'mid']);
    expect(listChats({ limit: 1 }, db).map((c) => c.id)).toEqual(['old']);
    // A new message is activity too.
    saveUserMessage('mid', userMessage('u1', 'hi'), db);
    expect(listChats({}, db)[0]?.id).toBe('mid');
  });

  it('renames without moving the chat up the list', () => {
    createChat({ id: 'a', at: t(0) }, db);
    createChat({ id: 'b', at: t(1000) }, db);
    const renamed = renameChat('a', '  Quarterly   report \n', db);
    expect(renamed?.title).toBe('Quarterly report');
    expect(renamed?.updatedAt).toEqual(t(0));
    expect(listChats({}, db).map((c) => c.id)).toEqual(['b', 'a']);
    expect(renameChat('a', '   ', db)?.title).toBe(DEFAULT_CHAT_TITLE);
    expect(renameChat('missing', 'x', db)).toBeNull();
  });

  it('deleting a chat cascades to its messages and activations', () => {
    createChat({ id: 'gone' }, db);
    createChat({ id: 'kept' }, db);
    for (const id of ['gone', 'kept']) {
      saveUserMessage(id, userMessage(`${id}-u`, 'hello'), db);
      startAssistantMessage(id, `${id}-a`, {}, db);
      recordActivation(id, 'pdf', 'model', undefined, db);
    }
    expect(deleteChat('gone', db)).toBe(true);
    expect(deleteChat('gone', db)).toBe(false);
    const count = (table: string) => db.$client.prepare(`select count(*) from ${table}`).pluck().get();
    expect(count('messages')).toBe(2);
    expect(count('activations')).toBe(1);
    expect(count('activation_events')).toBe(1);
    expect(getMessages('kept', db)).toHaveLength(2);
  });
});

describe('deriveTitle', () => {
  it.each([
    ['Summarise this PDF', 'Summarise this PDF'],
    ['\n\n  first   line  \nsecond line', 'first line'],
    ['', DEFAULT_CHAT_TITLE],
    ['   \n\t', DEFAULT_CHAT_TITLE],
    [
      'Please extract every table from the attached quarterly report and convert them to CSV',
      'Please extract every table from the attached quarterly…',
    ],
    ['x'.repeat(100), `${'x'.repeat(59)}…`],
  ])('%j -> %j', (text, title) => {
    expect(deriveTitle(text)).toBe(title);
    expect(Array.from(deriveTitle(text)).length).toBeLessThanOrEqual(60);
  });

  it('never splits an emoji', () => {
    expect(deriveTitle('😀'.repeat(80))).toBe(`${'😀'.repeat(59)}…`);
  });
});

describe('messages', () => {
  beforeEach(() => {
    createChat({ id: 'c' }, db);
  });

  it('round-trips parts exactly, tool parts with input and output included', () => {
    const assistant: UIMessage = {
      id: 'a1',
      role: 'assistant',
      metadata: { model: 'Offline model (built-in)', createdAt: 1767225600000 },
      parts: [
        { type: 'step-start' },
        { type: 'reasoning', text: 'The person wants a PDF skill.', state: 'done' },
        {
          type: 'tool-skills_activate',
          toolCallId: 'call_1',
          state: 'output-available',
          input: { name: 'pdf' },
          output: {
            name: 'pdf',
            instructions: '# PDF\n\nUse `pdftotext`.\n',
            resources: ['scripts/extract.py', 'ünïcødé ✓.md'],
            truncated: false,
            nested: { list: [1, 2.5, null, true], empty: {} },
          },
        },
        {
          type: 'tool-skills_readResource',
          toolCallId: 'call_2',
          state: 'output-error',
          input: { name: 'pdf', path: '../etc/passwd' },
          errorText: 'Path escapes the skill folder',
        },
        { type: 'text', text: 'Done. "Quotes", \\backslashes\\ and \u2028 survive.', state: 'done' },
        { type: 'data-activations', data: { names: ['pdf'] } },
      ],
    };
    saveUserMessage('c', userMessage('u1', 'Use the pdf skill'), db);
    startAssistantMessage('c', 'a1', {}, db);
    finishAssistantMessage('a1', { parts: assistant.parts, status: 'complete', metadata: assistant.metadata }, db);
    expect(getMessages('c', db)).toEqual([userMessage('u1', 'Use the pdf skill'), assistant]);
  });

  it('accepts an app-specific message type', () => {
    type Typed = UIMessage<
      { model?: string },
      { activations: { names: string[] } },
      { t: { input: { a: 1 }; output: string } }
    >;
    const message: Typed = {
      id: 'u1',
      role: 'user',
      parts: [{ type: 'text', text: 'hi' }],
      metadata: { model: 'm' },
    };
    saveUserMessage('c', message, db);
    const [loaded] = getMessages<Typed>('c', db);
    expect(loaded?.metadata?.model).toBe('m');
  });

  it('keeps insertion order even when timestamps tie or go backwards', () => {
    saveUserMessage('c', userMessage('m1', 'one'), db);
    saveMessage('c', userMessage('m2', 'two'), { at: t(0) }, db);
    saveMessage('c', userMessage('m3', 'three'), { at: t(0) }, db);
    expect(getMessages('c', db).map((m) => m.id)).toEqual(['m1', 'm2', 'm3']);
  });

  it('replaces a message with the same id in place', () => {
    saveUserMessage('c', userMessage('m1', 'one'), db);
    saveUserMessage('c', userMessage('m2', 'two'), db);
    saveUserMessage('c', userMessage('m1', 'one, edited'), db);
    expect(getMessages('c', db)).toEqual([userMessage('m1', 'one, edited'), userMessage('m2', 'two')]);
  });

  it('refuses ids of another chat, unknown chats and non-user messages', () => {
    createChat({ id: 'other' }, db);
    saveUserMessage('other', userMessage('m1', 'theirs'), db);
    expect(() => saveUserMessage('c', userMessage('m1', 'mine'), db)).toThrow(
      expect.objectContaining({ code: 'message-conflict' }),
    );
    expect(() => saveUserMessage('nope', userMessage('m9', 'x'), db)).toThrow(
      expect.objectContaining({ code: 'chat-not-found' }),
    );
    expect(() => saveUserMessage('c', { id: 'a', role: 'assistant', parts: [] }, db)).toThrow(
      expect.objectContaining({ code: 'invalid-input' }),
    );
    expect(() => startAssistantMessage('c', 'm1', {}, db)).toThrow(
      expect.objectContaining({ code: 'message-conflict' }),
    );
    expect(getMessages('other', db)).toEqual([userMessage('m1', 'theirs')]);
  });

  it('streams: starts empty, finishes with parts, status and error', () => {
    saveUserMessage('c', userMessage('u1', 'hi'), db);
    const started = startAssistantMessage('c', 'a1', {}, db);
    expect(started).toMatchObject({ status: 'streaming', message: { id: 'a1', role: 'assistant', parts: [] } });
    const finished = finishAssistantMessage(
      'a1',
      { parts: [{ type: 'text', text: 'partial' }], status: 'error', error: 'Model unreachable' },
      db,
    );
    expect(finished).toMatchObject({ status: 'error', error: 'Model unreachable', seq: 2 });
    expect(finishAssistantMessage('missing', { parts: [], status: 'complete' }, db)).toBeNull();
  });

  it('continuing an assistant message keeps its parts and position', () => {
    saveUserMessage('c', userMessage('u1', 'hi'), db);
    startAssistantMessage('c', 'a1', {}, db);
    finishAssistantMessage('a1', { parts: [{ type: 'text', text: 'first step' }], status: 'complete' }, db);
    const again = startAssistantMessage('c', 'a1', {}, db);
    expect(again).toMatchObject({
      status: 'streaming',
      seq: 2,
      message: { parts: [{ type: 'text', text: 'first step' }] },
    });
  });

  it('deletes the messages after one (regenerate)', () => {
    saveUserMessage('c', userMessage('u1', 'one'), db);
    startAssistantMessage('c', 'a1', {}, db);
    saveUserMessage('c', userMessage('u2', 'two'), db);
    startAssistantMessage('c', 'a2', {}, db);
    expect(deleteMessagesAfter('c', 'u2', {}, db)).toBe(1);
    expect(getMessages('c', db).map((m) => m.id)).toEqual(['u1', 'a1', 'u2']);
    expect(deleteMessagesAfter('c', 'a1', { inclusive: true }, db)).toBe(2);
    expect(getMessages('c', db).map((m) => m.id)).toEqual(['u1']);
    expect(deleteMessagesAfter('c', 'missing', {}, db)).toBe(0);
    expect(deleteMessagesAfter('other-chat', 'u1', {}, db)).toBe(0);
    // Positions are reused after a delete without clashing.
    startAssistantMessage('c', 'a3', {}, db);
    expect(getMessages('c', db).map((m) => m.id)).toEqual(['u1', 'a3']);
  });

  it('marks answers left streaming by a crash as interrupted on reopen', () => {
    saveUserMessage('c', userMessage('u1', 'hi'), db);
    startAssistantMessage('c', 'a1', {}, db);
    closeDb(db); // the process "dies" before finishAssistantMessage
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    db = openDb(dbFile);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('1 answer(s)'));
    warn.mockRestore();
    expect(getOpenReport(db)?.interruptedMessages).toBe(1);
    expect(getMessageRecords('c', db).map((r) => r.status)).toEqual(['complete', 'interrupted']);
    closeDb(db);
    db = openDb(dbFile);
    expect(getOpenReport(db)?.interruptedMessages).toBe(0);
  });

  it('a second process can open without interrupting answers in progress', () => {
    startAssistantMessage('c', 'a1', {}, db);
    const second = openDb(dbFile, { recoverStreaming: false });
    try {
      expect(getMessageRecords('c', second)[0]?.status).toBe('streaming');
    } finally {
      closeDb(second);
    }
  });

  it('reads corrupt rows leniently instead of failing the whole chat', () => {
    saveUserMessage('c', userMessage('u1', 'fine'), db);
    saveUserMessage('c', userMessage('u2', 'broken'), db);
    saveUserMessage('c', userMessage('u3', 'half'), db);
    saveUserMessage('c', userMessage('u4', 'meta'), db);
    const set = db.$client.prepare('update messages set parts = ?, metadata = ? where id = ?');
    set.run('{not json', null, 'u2');
    set.run(JSON.stringify([{ type: 'text', text: 'kept' }, 42, { no: 'type' }]), null, 'u3');
    set.run(JSON.stringify([{ type: 'text', text: 'meta' }]), '{oops', 'u4');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const records = getMessageRecords('c', db);
    warn.mockRestore();
    expect(records.map((r) => r.message.id)).toEqual(['u1', 'u2', 'u3', 'u4']);
    expect(records[0]?.readError).toBeUndefined();
    expect(records[1]?.readError).toBe('stored parts are not valid JSON');
    expect(records[1]?.message.parts).toEqual([
      { type: 'text', text: '[This message could not be read: stored parts are not valid JSON.]' },
    ]);
    expect(records[2]?.readError).toBe('2 unreadable part(s) dropped');
    expect(records[2]?.message.parts).toEqual([{ type: 'text', text: 'kept' }]);
    expect(records[3]?.readError).toBe('stored metadata is not valid JSON');
    expect(records[3]?.message).toEqual(userMessage('u4', 'meta'));
  });
});

describe('activations', () => {
  beforeEach(() => {
    createChat({ id: 'c1', title: 'PDF work' }, db);
    createChat({ id: 'c2', title: 'Spreadsheets' }, db);
  });

  it('upserts counts per how and logs every event', () => {
    expect(recordActivation('c1', 'pdf', 'explicit', t(0), db)).toMatchObject({
      count: 1,
      explicitCount: 1,
      modelCount: 0,
      firstHow: 'explicit',
      lastHow: 'explicit',
    });
    recordActivation('c1', 'pdf', 'model', t(2000), db);
    // An event recorded late with an older time counts, but does not become the latest.
    const pdf = recordActivation('c1', 'pdf', 'model', t(1000), db);
    expect(pdf).toEqual({
      chatId: 'c1',
      skillName: 'pdf',
      firstHow: 'explicit',
      lastHow: 'model',
      explicitCount: 1,
      modelCount: 2,
      count: 3,
      firstAt: t(0),
      lastAt: t(2000),
    });
    recordActivation('c1', 'xlsx', 'model', t(3000), db);
    recordActivation('c2', 'xlsx', 'explicit', t(4000), db);

    expect(getChatActivations('c1', db).map((a) => [a.skillName, a.count])).toEqual([
      ['pdf', 3],
      ['xlsx', 1],
    ]);
    expect(countActivationEvents({}, db)).toBe(5);
    expect(countActivationEvents({ skillName: 'xlsx' }, db)).toBe(2);

    const events = listActivationEvents({ limit: 2 }, db);
    expect(events).toEqual([
      { id: 5, chatId: 'c2', chatTitle: 'Spreadsheets', skillName: 'xlsx', how: 'explicit', at: t(4000) },
      { id: 4, chatId: 'c1', chatTitle: 'PDF work', skillName: 'xlsx', how: 'model', at: t(3000) },
    ]);
    expect(listActivationEvents({ limit: 2, offset: 2 }, db).map((e) => e.at)).toEqual([t(2000), t(1000)]);
    expect(listActivationEvents({ chatId: 'c2' }, db)).toHaveLength(1);

    expect(activationCountsBySkill(db)).toEqual([
      { skillName: 'pdf', count: 3, explicitCount: 1, modelCount: 2, chatCount: 1, lastAt: t(2000) },
      { skillName: 'xlsx', count: 2, explicitCount: 1, modelCount: 1, chatCount: 2, lastAt: t(4000) },
    ]);
  });

  it('refuses an unknown chat and writes nothing', () => {
    expect(() => recordActivation('nope', 'pdf', 'model', undefined, db)).toThrow(
      expect.objectContaining({ code: 'chat-not-found' }),
    );
    expect(countActivationEvents({}, db)).toBe(0);
  });
});

describe('skill mode overrides', () => {
  it('sets, replaces and clears a mode', async () => {
    const { openDb: open, listModeOverrides, setModeOverride } = await import('./index');
    const db = open(':memory:');
    setModeOverride('pdf', 'pinned', db);
    setModeOverride('pdf', 'off', db);
    setModeOverride('csv', 'manual', db);
    expect(listModeOverrides(db)).toEqual(
      new Map([
        ['pdf', 'off'],
        ['csv', 'manual'],
      ]),
    );
    setModeOverride('pdf', null, db);
    expect(listModeOverrides(db)).toEqual(new Map([['csv', 'manual']]));
  });
});
