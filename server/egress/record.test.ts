import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { closeDb, type Database, type Db, listEgressEvents, openDb, sqliteDatabase } from '../db';
import { createEgressRecorder, egressExport } from './record';
import type { EgressEvent } from './types';

const event = (host: string, e: Partial<EgressEvent> = {}): EgressEvent => ({
  host,
  port: 443,
  allowed: true,
  skills: ['github-issues'],
  requests: 1,
  bytesIn: 6000,
  bytesOut: 200,
  startedAt: 1_000,
  durationMs: 3,
  ...e,
});
const run = { runId: 'run-1', chatId: null, userId: 'ann' };

describe('the egress recorder', () => {
  let db: Db;
  let d: Database;
  beforeEach(() => {
    db = openDb(':memory:');
    d = sqliteDatabase(db);
  });
  afterEach(() => {
    vi.useRealTimers();
    closeDb(db);
  });

  it('writes a burst as one batch after the interval, and the rest at close', async () => {
    vi.useFakeTimers();
    const batches: number[] = [];
    const recorder = createEgressRecorder(run, d, {
      write: async (r, events) => {
        batches.push(events.length);
        const { insertEgressEvents } = await import('../db');
        await insertEgressEvents(r, events, d);
      },
    });
    recorder.add(event('api.github.com'));
    recorder.add(event('api.github.com'));
    recorder.add(
      event('example.com', {
        allowed: false,
        code: 'not-granted',
        reason: 'example.com:443 is not granted to github-issues.',
      }),
    );
    expect(batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(249);
    expect(batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(batches).toEqual([3]);
    recorder.add(event('api.github.com', { requests: 2 }));
    vi.useRealTimers();
    expect(await recorder.close()).toEqual([
      { host: 'api.github.com', port: 443, allowed: true, requests: 4, bytesIn: 18000, bytesOut: 600 },
      {
        host: 'example.com',
        port: 443,
        allowed: false,
        requests: 1,
        bytesIn: 6000,
        bytesOut: 200,
        reason: 'example.com:443 is not granted to github-issues.',
      },
    ]);
    expect(batches).toEqual([3, 1]);
    const stored = await listEgressEvents({ runId: 'run-1' }, d);
    expect(stored).toHaveLength(4);
    expect(stored.every((r) => r.userId === 'ann')).toBe(true);
  });

  it('writes straight to the database by default', async () => {
    const recorder = createEgressRecorder(run, d, { intervalMs: 5 });
    recorder.add(event('api.github.com'));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await listEgressEvents({}, d)).toHaveLength(1);
    await recorder.close();
  });

  it('a failed write is reported, never thrown at the proxy', async () => {
    const errors: string[] = [];
    const recorder = createEgressRecorder(run, d, {
      write: () => Promise.reject(new Error('disk full')),
      onError: (e) => errors.push((e as Error).message),
    });
    recorder.add(event('api.github.com'));
    await expect(recorder.close()).resolves.toHaveLength(1);
    expect(errors).toEqual(['disk full']);
  });
});

describe('the JSON export', () => {
  it('has the record as stored, with the person by email where known', () => {
    const out = egressExport(
      [
        {
          id: 1,
          runId: 'r',
          chatId: 'c',
          userId: 'u1',
          skills: ['a'],
          host: 'h.test',
          port: 443,
          allowed: false,
          code: 'not-granted',
          reason: 'h.test:443 is not granted to a.',
          requests: 1,
          bytesIn: 0,
          bytesOut: 0,
          durationMs: 1,
          at: new Date(0),
        },
      ],
      { host: 'h.test' },
      { now: new Date(1000), person: (id) => (id === 'u1' ? 'ann@example.test' : undefined) },
    );
    expect(out).toEqual({
      kind: 'skillchat-egress-record',
      version: 1,
      exportedAt: '1970-01-01T00:00:01.000Z',
      filters: { host: 'h.test' },
      events: [
        {
          at: '1970-01-01T00:00:00.000Z',
          runId: 'r',
          chatId: 'c',
          person: 'ann@example.test',
          skills: ['a'],
          host: 'h.test',
          port: 443,
          allowed: false,
          code: 'not-granted',
          reason: 'h.test:443 is not granted to a.',
          requests: 1,
          bytesIn: 0,
          bytesOut: 0,
          durationMs: 1,
        },
      ],
    });
  });
});
