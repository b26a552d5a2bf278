/**
 * Route level: another person's chat is a 404 on every chat route (read, export, rename, delete, files, versions, stop,
 * resume), and
 * creating a chat with their id is refused, not a takeover. The person asking comes from `currentUserId`, mocked.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const who = vi.hoisted(() => ({ id: 'bob' }));
vi.mock('@/app/_lib/current-user', () => ({ currentUserId: async () => who.id }));

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-owner-'));

beforeAll(async () => {
  vi.stubEnv('SKILLCHAT_DB', path.join(tmp, 'chat.db'));
  vi.stubEnv('SKILLCHAT_SKILL_ROOTS', path.join(tmp, 'skills'));
  const { getApp } = await import('@/server/app');
  const { createChat, saveUserMessage } = await import('@/server/db');
  const { db } = await getApp();
  await createChat({ id: 'alice-chat', title: 'Alice only', userId: 'alice' }, db);
  await saveUserMessage('alice-chat', { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'private' }] }, db);
});

afterAll(async () => {
  const { closeApp } = await import('@/server/app');
  await closeApp();
  vi.unstubAllEnvs();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const params = (id: string) => ({ params: Promise.resolve({ id }) });
const req = (url: string, init?: RequestInit) => new Request(`http://127.0.0.1/${url}`, init);

describe('chat routes for another person', () => {
  it('are 404 for bob and work for alice', async () => {
    const chat = await import('./[id]/route');
    const chats = await import('./route');
    const exported = await import('./[id]/export/route');
    const files = await import('./[id]/files/route');
    const versions = await import('./[id]/versions/route');
    const stop = await import('./[id]/stop/route');
    const stream = await import('./[id]/stream/route');
    who.id = 'bob';
    const stopped = await stop.POST(req('api/chats/alice-chat/stop', { method: 'POST' }), params('alice-chat'));
    expect(stopped.status).toBe(404);
    expect(await stopped.json()).toMatchObject({ code: 'not_found:chat' });
    expect((await stream.GET(req('api/chats/alice-chat/stream'), params('alice-chat'))).status).toBe(404);
    // Ownership comes before the body: a malformed switch on another person's chat is a 404, not a 400.
    const badSwitch = req('api/chats/alice-chat/versions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ nonsense: true }),
    });
    expect((await versions.POST(badSwitch, params('alice-chat'))).status).toBe(404);
    expect((await versions.GET(req('api/chats/alice-chat/versions'), params('alice-chat'))).status).toBe(404);
    const switchTo = req('api/chats/alice-chat/versions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ parentId: '', version: 1 }),
    });
    expect((await versions.POST(switchTo, params('alice-chat'))).status).toBe(404);
    expect((await chat.GET(req('api/chats/alice-chat'), params('alice-chat'))).status).toBe(404);
    expect((await exported.GET(req('api/chats/alice-chat/export'), params('alice-chat'))).status).toBe(404);
    expect((await files.GET(req('api/chats/alice-chat/files'), params('alice-chat'))).status).toBe(404);
    const rename = req('api/chats/alice-chat', {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Taken' }),
    });
    expect((await chat.PATCH(rename, params('alice-chat'))).status).toBe(404);
    const create = req('api/chats', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'alice-chat' }),
    });
    expect((await chats.POST(create)).status).toBe(404);
    expect(await (await chats.GET(req('api/chats'))).json()).toEqual({ chats: [] });
    expect(await (await chats.GET(req('api/chats?q=private'))).json()).toEqual({ chats: [] });
    expect((await chat.DELETE(req('api/chats/alice-chat', { method: 'DELETE' }), params('alice-chat'))).status).toBe(
      404,
    );

    who.id = 'alice';
    const view = await chat.GET(req('api/chats/alice-chat'), params('alice-chat'));
    expect(view.status).toBe(200);
    expect(await view.json()).toMatchObject({ chat: { title: 'Alice only' }, messages: [{ id: 'm1' }] });
    expect((await files.GET(req('api/chats/alice-chat/files'), params('alice-chat'))).status).toBe(200);
    const mine = await versions.GET(req('api/chats/alice-chat/versions'), params('alice-chat'));
    expect(await mine.json()).toEqual({ versions: [] });
    // One's own idle chat: nothing to stop, nothing to resume.
    const idle = await stop.POST(req('api/chats/alice-chat/stop', { method: 'POST' }), params('alice-chat'));
    expect(await idle.json()).toEqual({ stopped: false });
    expect((await stream.GET(req('api/chats/alice-chat/stream'), params('alice-chat'))).status).toBe(204);
  });
});
