import SqliteDriver from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb } from './client';
import { chats } from './schema';
import { keepStatements } from './statement-cache';

const open: SqliteDriver.Database[] = [];
const client = () => {
  const db = new SqliteDriver(':memory:');
  open.push(db);
  return db;
};
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

describe('keepStatements', () => {
  it('prepares each SQL text once', () => {
    const db = client();
    keepStatements(db);
    expect(db.prepare('SELECT 1 AS a')).toBe(db.prepare('SELECT 1 AS a'));
    expect(db.prepare('SELECT 2 AS a')).not.toBe(db.prepare('SELECT 1 AS a'));
  });

  it('hands a kept statement out with the modes a fresh one has', () => {
    const db = client();
    keepStatements(db);
    expect(db.prepare('SELECT 1 AS a').raw().all()).toEqual([[1]]);
    expect(db.prepare('SELECT 1 AS a').all()).toEqual([{ a: 1 }]);
    expect(db.prepare('SELECT 1 AS a').pluck().all()).toEqual([1]);
    expect(db.prepare('SELECT 1 AS a').get()).toEqual({ a: 1 });
    // Statements that return nothing have no modes to reset.
    db.prepare('CREATE TABLE t (x)').run();
    expect(db.prepare('INSERT INTO t VALUES (1)').run().changes).toBe(1);
    expect(db.prepare('INSERT INTO t VALUES (1)').run().changes).toBe(1);
  });

  it('keeps at most `max`, dropping the least recently used', () => {
    const db = client();
    keepStatements(db, 2);
    const a = db.prepare('SELECT 1');
    const b = db.prepare('SELECT 2');
    expect(db.prepare('SELECT 1')).toBe(a); // now the most recent
    db.prepare('SELECT 3'); // drops SELECT 2
    expect(db.prepare('SELECT 1')).toBe(a);
    expect(db.prepare('SELECT 2')).not.toBe(b);
  });

  it('serves drizzle on the app connection: a query run twice is prepared once', () => {
    const db = openDb(':memory:');
    open.push(db.$client);
    const handedOut: SqliteDriver.Statement[] = [];
    const prepare = db.$client.prepare;
    db.$client.prepare = ((source: string) => {
      const statement = prepare(source);
      handedOut.push(statement);
      return statement;
    }) as typeof prepare;
    db.select().from(chats).where(eq(chats.id, 'a')).all();
    db.select().from(chats).where(eq(chats.id, 'b')).all();
    expect(handedOut).toHaveLength(2);
    expect(handedOut[1]).toBe(handedOut[0]);
  });
});
