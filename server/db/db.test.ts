import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { UIMessage } from 'ai';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { describeDb } from '../../test/db/db-suite';
import { describeLeases } from '../../test/db/lease-suite';
import { describeSearch } from '../../test/db/search-suite';
import { describeTurnWrites } from '../../test/db/turn-suite';
import { createChat, getChat, listChats } from './chats';
import { closeDb, type Db, getOpenReport, openDb, sqliteDatabase, withoutFlush } from './client';
import { getMessageRecords, saveUserMessage, startAssistantMessage } from './messages';
import { acquireTurnLease, getTurnLease } from './turn-leases';

// The query layer's behaviour, shared with PostgreSQL (db.pg.test.ts): a fresh in-memory database per test.
async function openMemory() {
  const db = openDb(':memory:');
  return { d: sqliteDatabase(db), close: () => closeDb(db) };
}
describeDb('sqlite', openMemory);
describeSearch('sqlite', openMemory);
describeLeases('sqlite', openMemory);
describeTurnWrites('sqlite', openMemory);

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

  it('reopens an existing file without reapplying migrations and keeps the data', async () => {
    await createChat({ id: 'c1', title: 'Kept' }, sqliteDatabase(db));
    closeDb(db);
    db = openDb(dbFile);
    expect((await getChat('c1', sqliteDatabase(db)))?.title).toBe('Kept');
  });

  it('works in memory', async () => {
    const mem = openDb(':memory:');
    try {
      await createChat({ id: 'm' }, sqliteDatabase(mem));
      expect(getOpenReport(mem)?.journalMode).toBe('memory');
      expect(await listChats({}, sqliteDatabase(mem))).toHaveLength(1);
    } finally {
      closeDb(mem);
    }
  });

  it('names the folder it could not find migrations in', () => {
    expect(() => openDb(path.join(dir, 'other.db'), { migrationsFolder: dir })).toThrow(/_journal\.json/);
  });
});

describe('streaming recovery (one SQLite file, two processes)', () => {
  beforeEach(async () => {
    await createChat({ id: 'c' }, sqliteDatabase(db));
  });

  it('marks answers left streaming by a crash as interrupted on reopen', async () => {
    await saveUserMessage('c', userMessage('u1', 'hi'), sqliteDatabase(db));
    await startAssistantMessage('c', 'a1', {}, sqliteDatabase(db));
    closeDb(db); // the process "dies" before finishAssistantMessage
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    db = openDb(dbFile);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('1 answer(s)'));
    warn.mockRestore();
    expect(getOpenReport(db)?.interruptedMessages).toBe(1);
    expect((await getMessageRecords('c', sqliteDatabase(db))).map((r) => r.status)).toEqual([
      'complete',
      'interrupted',
    ]);
    closeDb(db);
    db = openDb(dbFile);
    expect(getOpenReport(db)?.interruptedMessages).toBe(0);
  });

  it("reopening spares an answer another live process is writing (its lease), not a dead process's", async () => {
    await createChat({ id: 'other' }, sqliteDatabase(db));
    await startAssistantMessage('c', 'live-answer', {}, sqliteDatabase(db));
    await startAssistantMessage('other', 'dead-answer', {}, sqliteDatabase(db));
    // A live process elsewhere (its heartbeat is fresh), and a process of this host that was killed.
    await acquireTurnLease(sqliteDatabase(db), { chatId: 'c', instanceId: 'elsewhere', expiryMs: 30_000 });
    const killed = `${os.hostname()}:${2 ** 22 + 7}:gone`;
    await acquireTurnLease(sqliteDatabase(db), { chatId: 'other', instanceId: killed, expiryMs: 30_000 });
    closeDb(db);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    db = openDb(dbFile);
    warn.mockRestore();
    expect(getOpenReport(db)?.interruptedMessages).toBe(1);
    expect((await getMessageRecords('c', sqliteDatabase(db)))[0]?.status).toBe('streaming');
    expect((await getMessageRecords('other', sqliteDatabase(db)))[0]?.status).toBe('interrupted');
  });

  it('a second process can open without interrupting answers in progress', async () => {
    await startAssistantMessage('c', 'a1', {}, sqliteDatabase(db));
    const second = openDb(dbFile, { recoverStreaming: false });
    try {
      expect((await getMessageRecords('c', sqliteDatabase(second)))[0]?.status).toBe('streaming');
    } finally {
      closeDb(second);
    }
  });
});

describe('a commit not flushed by itself (withoutFlush: the turn leases)', () => {
  it('is seen by another connection at once, and leaves the connection at FULL sync, even when it fails', async () => {
    const d = sqliteDatabase(db);
    await createChat({ id: 'c' }, d);
    expect(await acquireTurnLease(d, { chatId: 'c', instanceId: 'a', expiryMs: 30_000 })).toBe(true);
    expect(db.$client.pragma('synchronous', { simple: true })).toBe(2);
    const other = openDb(dbFile, { recoverStreaming: false });
    try {
      expect((await getTurnLease(sqliteDatabase(other), 'c'))?.instanceId).toBe('a');
    } finally {
      closeDb(other);
    }
    await expect(
      withoutFlush(d, (q) =>
        q
          .insert(d.t.chatTurns)
          .values({ chatId: 'missing', instanceId: 'a', startedAt: new Date(), heartbeatAt: new Date() })
          .returning(),
      ),
    ).rejects.toThrow(/FOREIGN KEY/);
    expect(db.$client.pragma('synchronous', { simple: true })).toBe(2);
  });
});
