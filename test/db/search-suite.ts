/** Chat search on both databases (SQLite FTS5, PostgreSQL tsvector): run by db.test.ts and db.pg.test.ts. */
import type { UIMessage } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChat, deleteChat, renameChat, touchChat } from '../../server/db/chats';
import type { Database } from '../../server/db/client';
import {
  deleteMessagesAfter,
  finishAssistantMessage,
  saveUserMessage,
  startAssistantMessage,
} from '../../server/db/messages';
import { ftsQuery, searchChats, tsQuery } from '../../server/db/search';
import type { OpenedDatabase } from './db-suite';

export function describeSearch(dialect: 'sqlite' | 'pg', open: () => Promise<OpenedDatabase>): void {
  const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });

  describe(`searchChats on ${dialect}`, () => {
    let opened: OpenedDatabase;
    let d: Database;
    beforeEach(async () => {
      opened = await open();
      d = opened.d;
    });
    afterEach(async () => {
      await opened.close();
    });
    const ids = async (q: string) => (await searchChats(q, {}, d)).map((h) => h.chat.id);

    it('finds chats by title and by message text, by word prefix, newest first', async () => {
      await createChat({ id: 'a', title: 'Quarterly report', at: new Date(1000) }, d);
      await createChat({ id: 'b', title: 'Other', at: new Date(2000) }, d);
      await saveUserMessage('b', user('m1', 'Please convert this CSV into JSON'), d);
      await createChat({ id: 'c', title: 'Nothing here', at: new Date(3000) }, d);
      expect(await ids('quarter')).toEqual(['a']);
      expect(await ids('csv json')).toEqual(['b']);
      expect(await ids('REPORT')).toEqual(['a']);
      expect(await ids('csv report')).toEqual([]);
      await touchChat('a', new Date(5000), d);
      await saveUserMessage('a', user('m2', 'the report as csv please'), d);
      expect(await ids('csv')).toEqual(['a', 'b']);
      expect((await searchChats('csv', {}, d))[1]!.snippet).toContain('CSV into JSON');
    });

    it('follows renames, answers, regenerate and deletes', async () => {
      await createChat({ id: 'a', title: 'Old name' }, d);
      await renameChat('a', 'New name', d);
      expect(await ids('old')).toEqual([]);
      expect(await ids('new')).toEqual(['a']);
      await saveUserMessage('a', user('u1', 'hello'), d);
      await startAssistantMessage('a', 'r1', {}, d);
      expect(await ids('zebra')).toEqual([]);
      await finishAssistantMessage('r1', { parts: [{ type: 'text', text: 'a zebra answer' }], status: 'complete' }, d);
      expect(await ids('zebra')).toEqual(['a']);
      await deleteMessagesAfter('a', 'u1', {}, d);
      expect(await ids('zebra')).toEqual([]);
      await deleteChat('a', d);
      expect(await ids('hello')).toEqual([]);
      expect(await ids('new')).toEqual([]);
    });

    it('never interprets FTS syntax typed into the box', async () => {
      await createChat({ id: 'a', title: 'NEAR AND OR "quotes"' }, d);
      expect(ftsQuery('a" OR * NEAR(')).toBe('"a"* "OR"* "NEAR"*');
      expect(ftsQuery('  -*() ')).toBeNull();
      expect(tsQuery("a' | b:* & !c")).toBe("'a':* & 'b':* & 'c':*");
      expect(await ids('"quotes')).toEqual(['a']);
      expect(await ids('*')).toEqual([]);
    });
  });
}
