/**
 * `GET /api/chats/:id/messages`: pages of a long chat by cursor, bad queries as 400 with a code, another
 * person's chat as 404. The person asking comes from `currentUserId`, mocked.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const who = vi.hoisted(() => ({ id: 'alice' }));
vi.mock('@/app/_lib/current-user', () => ({ currentUserId: async () => who.id }));

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-pages-'));

beforeAll(async () => {
  vi.stubEnv('SKILLCHAT_DB', path.join(tmp, 'chat.db'));
  vi.stubEnv('SKILLCHAT_SKILL_ROOTS', path.join(tmp, 'skills'));
  const { getApp } = await import('@/server/app');
  const { createChat, saveMessage } = await import('@/server/db');
  const { db } = await getApp();
  await createChat({ id: 'long', title: 'Long', userId: 'alice' }, db);
  for (let n = 1; n <= 130; n++) {
    const role = n % 2 === 1 ? 'user' : 'assistant';
    await saveMessage('long', { id: `m${n}`, role, parts: [{ type: 'text', text: `message ${n}` }] }, {}, db);
  }
});

afterAll(async () => {
  const { closeDb } = await import('@/server/db');
  closeDb();
  vi.unstubAllEnvs();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const params = (id: string) => ({ params: Promise.resolve({ id }) });
async function get(query: string, chat = 'long') {
  const { GET } = await import('./route');
  const response = await GET(new Request(`http://127.0.0.1/api/chats/${chat}/messages${query}`), params(chat));
  return { status: response.status, body: await response.json() };
}
const ids = (body: { messages: { id: string }[] }) => body.messages.map((m) => m.id);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `m${from + i}`);

describe('GET /api/chats/:id/messages', () => {
  it('gives the newest page, then older pages before a cursor, oldest first', async () => {
    who.id = 'alice';
    const newest = await get('');
    expect(newest.status).toBe(200);
    expect(ids(newest.body)).toEqual(range(81, 130));
    expect(newest.body).toMatchObject({ hasEarlier: true, hasLater: false });
    const older = await get('?before=m81');
    expect(ids(older.body)).toEqual(range(31, 80));
    expect(older.body).toMatchObject({ hasEarlier: true, hasLater: true });
    const first = await get('?before=m31&limit=200');
    expect(ids(first.body)).toEqual(range(1, 30));
    expect(first.body.hasEarlier).toBe(false);
    const later = await get('?after=m10&limit=3');
    expect(ids(later.body)).toEqual(['m11', 'm12', 'm13']);
    expect(later.body).toMatchObject({ hasEarlier: true, hasLater: true });
  });

  it.each([
    ['?limit=0', 'bad_request:messages'],
    ['?limit=500', 'bad_request:messages'],
    ['?limit=ten', 'bad_request:messages'],
    ['?before=m5&after=m9', 'bad_request:messages'],
    ['?before=', 'bad_request:messages'],
    ['?page=2', 'bad_request:messages'],
  ])('refuses %s with 400 %s', async (query, code) => {
    const { status, body } = await get(query);
    expect(status).toBe(400);
    expect(body).toEqual({ error: expect.any(String), code });
  });

  it('refuses a malformed chat id with 400, and a cursor not in the chat with 404', async () => {
    expect(await get('', 'bad id!')).toMatchObject({ status: 400, body: { code: 'bad_request:chat' } });
    expect(await get('?before=nope')).toMatchObject({ status: 404, body: { code: 'not_found:message' } });
  });

  it("is 404 for another person's chat, as for a missing one", async () => {
    who.id = 'bob';
    expect(await get('')).toMatchObject({ status: 404, body: { code: 'not_found:chat' } });
    expect(await get('?before=m81')).toMatchObject({ status: 404, body: { code: 'not_found:chat' } });
    expect(await get('', 'missing')).toMatchObject({ status: 404, body: { code: 'not_found:chat' } });
    who.id = 'alice';
  });
});
