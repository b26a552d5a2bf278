/** The egress record's queries on both databases: run by server/db/egress.test.ts and egress.pg.test.ts. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChat, deleteChat } from '../../server/db/chats';
import type { Database } from '../../server/db/client';
import {
  countEgressEvents,
  type EgressEventInput,
  egressFilterChoices,
  egressRunSummary,
  insertEgressEvents,
  listEgressEvents,
} from '../../server/db/egress';
import type { OpenedDatabase } from './db-suite';

const event = (e: Partial<EgressEventInput> & Pick<EgressEventInput, 'host' | 'startedAt'>): EgressEventInput => ({
  port: 443,
  allowed: true,
  skills: ['github-issues'],
  requests: 1,
  bytesIn: 100,
  bytesOut: 10,
  durationMs: 5,
  ...e,
});

export function describeEgressRecord(dialect: 'sqlite' | 'pg', open: () => Promise<OpenedDatabase>): void {
  describe(`egress record on ${dialect}`, () => {
    let opened: OpenedDatabase;
    let d: Database;
    beforeEach(async () => {
      opened = await open();
      d = opened.d;
      await createChat({ id: 'c1', title: 'one', userId: 'ann' }, d);
      await createChat({ id: 'c2', title: 'two', userId: 'bob' }, d);
      await insertEgressEvents(
        { runId: 'r1', chatId: 'c1', userId: 'ann' },
        [
          event({ host: 'api.github.com', startedAt: 1000, requests: 2, bytesIn: 1000, bytesOut: 50 }),
          event({ host: 'api.github.com', startedAt: 2000, requests: 1, bytesIn: 24, bytesOut: 6 }),
          event({
            host: 'example.com',
            startedAt: 3000,
            allowed: false,
            code: 'not-granted',
            reason: 'example.com:443 is not granted to github-issues.',
            requests: 1,
            bytesIn: 0,
            bytesOut: 0,
          }),
          event({ host: 'example.com', startedAt: 3500, allowed: false, code: 'not-granted', reason: 'second' }),
        ],
        d,
      );
      await insertEgressEvents(
        { runId: 'r2', chatId: 'c2', userId: 'bob' },
        [
          event({ host: 'rates.test', port: 8443, startedAt: 4000, skills: ['rates', 'github_x%'] }),
          event({ host: 'api.github.com', startedAt: 5000, skills: ['github-issues', 'rates'] }),
        ],
        d,
      );
    });
    afterEach(async () => {
      await opened.close();
    });
    const hosts = async (q: Parameters<typeof listEgressEvents>[0]) =>
      (await listEgressEvents(q, d)).map((e) => `${e.host}@${e.at.getTime()}`);

    it('lists newest first with every field as stored', async () => {
      const rows = await listEgressEvents({}, d);
      expect(rows.map((r) => r.at.getTime())).toEqual([5000, 4000, 3500, 3000, 2000, 1000]);
      expect(rows[3]).toEqual({
        id: expect.any(Number),
        runId: 'r1',
        chatId: 'c1',
        userId: 'ann',
        skills: ['github-issues'],
        host: 'example.com',
        port: 443,
        allowed: false,
        code: 'not-granted',
        reason: 'example.com:443 is not granted to github-issues.',
        requests: 1,
        bytesIn: 0,
        bytesOut: 0,
        durationMs: 5,
        at: new Date(3000),
      });
      expect(await countEgressEvents({}, d)).toBe(6);
    });

    it('filters by person, skill, host, outcome and run, and pages', async () => {
      expect(await hosts({ userId: 'bob' })).toEqual(['api.github.com@5000', 'rates.test@4000']);
      expect(await hosts({ skill: 'rates' })).toEqual(['api.github.com@5000', 'rates.test@4000']);
      // A name is matched whole, and LIKE's wildcards in it are literal.
      expect(await hosts({ skill: 'github' })).toEqual([]);
      expect(await hosts({ skill: 'github_x%' })).toEqual(['rates.test@4000']);
      expect(await hosts({ skill: 'github-x%' })).toEqual([]);
      expect(await hosts({ host: 'API.github.com', userId: 'ann' })).toEqual([
        'api.github.com@2000',
        'api.github.com@1000',
      ]);
      expect(await hosts({ allowed: false })).toEqual(['example.com@3500', 'example.com@3000']);
      expect(await hosts({ runId: 'r2', allowed: true })).toEqual(['api.github.com@5000', 'rates.test@4000']);
      expect(await hosts({ limit: 2, offset: 1 })).toEqual(['rates.test@4000', 'example.com@3500']);
      expect(await countEgressEvents({ skill: 'github-issues' }, d)).toBe(5);
    });

    it('sums a run per host:port and outcome, a refusal with its first sentence', async () => {
      expect(await egressRunSummary('r1', d)).toEqual([
        {
          host: 'api.github.com',
          port: 443,
          allowed: true,
          requests: 3,
          bytesIn: 1024,
          bytesOut: 56,
          reason: null,
        },
        {
          host: 'example.com',
          port: 443,
          allowed: false,
          requests: 2,
          bytesIn: 100,
          bytesOut: 10,
          reason: 'example.com:443 is not granted to github-issues.',
        },
      ]);
      expect(await egressRunSummary('none', d)).toEqual([]);
    });

    it('keeps the record of a deleted chat, without the chat', async () => {
      await deleteChat('c1', d);
      const rows = await listEgressEvents({ userId: 'ann' }, d);
      expect(rows).toHaveLength(4);
      expect(rows.every((r) => r.chatId === null)).toBe(true);
    });

    it('lists the hosts and people in the record for the filters', async () => {
      const choices = await egressFilterChoices(d);
      expect(choices.hosts).toEqual(['api.github.com', 'example.com', 'rates.test']);
      expect([...choices.userIds].sort()).toEqual(['ann', 'bob']);
    });
  });
}
