import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createScratchDatabase } from '../../test/pg-scratch';
import { closePgDb, openPgDb, type PgDb } from './pg';
import * as pgSchema from './schema-pg';

const baseUrl = inject('pgUrl');

describe.skipIf(!baseUrl)('PostgreSQL schema (drizzle-pg migrations on a scratch server)', () => {
  let db: PgDb;
  let url: string;

  beforeAll(async () => {
    url = await createScratchDatabase(baseUrl, 'schema');
    db = await openPgDb(url);
  });
  afterAll(async () => {
    if (db) await closePgDb(db);
  });

  it('applies every migration, and opening again (a second instance) applies nothing twice', async () => {
    const applied = await db.$client.query('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
    const journal = await import('../../drizzle-pg/meta/_journal.json', { with: { type: 'json' } });
    expect(applied.rows[0].n).toBe(journal.default.entries.length);
    // Two instances starting together: the advisory lock serialises them.
    const [a, b] = await Promise.all([openPgDb(url), openPgDb(url)]);
    await Promise.all([closePgDb(a), closePgDb(b)]);
    const again = await db.$client.query('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
    expect(again.rows[0].n).toBe(journal.default.entries.length);
  });

  it('round-trips a row in every table, with dates and booleans typed as on SQLite', async () => {
    const at = new Date('2026-11-24T10:00:00.123Z');
    await db.insert(pgSchema.chats).values({ id: 'c1', title: 'First', createdAt: at, updatedAt: at });
    await db.insert(pgSchema.messages).values({
      id: 'm1',
      chatId: 'c1',
      seq: 1,
      role: 'user',
      parts: '[{"type":"text","text":"hi"}]',
      status: 'streaming',
      createdAt: at,
      updatedAt: at,
    });
    await db.insert(pgSchema.activations).values({
      chatId: 'c1',
      skillName: 'pdf',
      firstHow: 'explicit',
      lastHow: 'model',
      explicitCount: 1,
      modelCount: 2,
      firstAt: at,
      lastAt: at,
    });
    await db.insert(pgSchema.activationEvents).values({ chatId: 'c1', skillName: 'pdf', how: 'model', at });
    await db
      .insert(pgSchema.permissionGrants)
      .values({ subjectKind: 'skill', subject: 'pdf', contentHash: 'h', grantedAt: at });
    await db
      .insert(pgSchema.permissionDecisions)
      .values({ chatId: 'c1', subjectKind: 'skill', subject: 'pdf', decision: 'always', contentHash: 'h', at });
    await db
      .insert(pgSchema.scriptRuns)
      .values({ chatId: 'c1', skillName: 'pdf', script: 'x.py', args: '[]', timedOut: true, durationMs: 5, at });
    await db.insert(pgSchema.skillModes).values({ skillName: 'pdf', mode: 'pinned', updatedAt: at });
    await db.insert(pgSchema.users).values({
      id: 'u1',
      name: 'Ann',
      email: 'ann@example.test',
      role: 'admin',
      createdAt: at,
      updatedAt: at,
    });
    await db
      .insert(pgSchema.sessions)
      .values({ id: 's1', token: 't1', userId: 'u1', expiresAt: at, createdAt: at, updatedAt: at });
    await db.insert(pgSchema.accounts).values({
      id: 'a1',
      accountId: 'u1',
      providerId: 'credential',
      userId: 'u1',
      password: 'hash',
      createdAt: at,
      updatedAt: at,
    });
    await db
      .insert(pgSchema.verifications)
      .values({ id: 'v1', identifier: 'i', value: 'v', expiresAt: at, createdAt: at, updatedAt: at });

    const [message] = await db.select().from(pgSchema.messages).where(eq(pgSchema.messages.id, 'm1'));
    expect(message?.createdAt).toEqual(at);
    expect(message?.status).toBe('streaming');
    expect((await db.select().from(pgSchema.chats))[0]?.title).toBe('First');
    expect((await db.select().from(pgSchema.activations))[0]?.modelCount).toBe(2);
    expect((await db.select().from(pgSchema.activationEvents))[0]?.id).toBe(1);
    expect((await db.select().from(pgSchema.permissionGrants))[0]?.revokedAt).toBeNull();
    expect((await db.select().from(pgSchema.permissionDecisions))[0]?.decision).toBe('always');
    expect((await db.select().from(pgSchema.scriptRuns))[0]?.timedOut).toBe(true);
    expect((await db.select().from(pgSchema.skillModes))[0]?.mode).toBe('pinned');
    const [user] = await db.select().from(pgSchema.users);
    expect(user).toMatchObject({ email: 'ann@example.test', banned: false, emailVerified: false, role: 'admin' });
    expect((await db.select().from(pgSchema.sessions))[0]?.token).toBe('t1');
    expect((await db.select().from(pgSchema.accounts))[0]?.providerId).toBe('credential');
    expect((await db.select().from(pgSchema.verifications))[0]?.expiresAt).toEqual(at);

    // Cascades match SQLite's: deleting the chat takes its messages and activations, nulls the audit rows' link.
    await db.delete(pgSchema.chats).where(eq(pgSchema.chats.id, 'c1'));
    expect(await db.select().from(pgSchema.messages)).toEqual([]);
    expect((await db.select().from(pgSchema.scriptRuns))[0]?.chatId).toBeNull();
    // Deleting a user takes their sessions and credentials.
    await db.delete(pgSchema.users).where(eq(pgSchema.users.id, 'u1'));
    expect(await db.select().from(pgSchema.sessions)).toEqual([]);
    expect(await db.select().from(pgSchema.accounts)).toEqual([]);
  });

  it('keeps a duplicate message position impossible (the unique index exists)', async () => {
    const at = new Date();
    await db.insert(pgSchema.chats).values({ id: 'c2', title: 't', createdAt: at, updatedAt: at });
    const row = { chatId: 'c2', seq: 1, role: 'user' as const, parts: '[]', status: 'complete' as const };
    await db.insert(pgSchema.messages).values({ id: 'x1', ...row });
    await expect(db.insert(pgSchema.messages).values({ id: 'x2', ...row })).rejects.toThrow();
  });
});
