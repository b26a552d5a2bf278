/**
 * A server that signs each person in, in a chat turn: the offline model calls `mcp.notes.whoami`; the connected
 * person's call goes out as them, the one who has not connected gets "connect to use", one whose server asks for
 * more scope gets "connect again to grant", and no token reaches the stored chat, its export, a log line or the
 * admin's view.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type OAuthMcpServer, startOAuthMcpServer } from '../../test/mcp/oauth-servers';
import { runTurnToEnd } from '../../test/turn-deps';
import { createAccessResolver } from '../access/resolver';
import { buildMcpAdmin } from '../admin/mcp';
import { createDbChatStore } from '../chat/db-store';
import { exportChat } from '../chat/export';
import type { ChatStore } from '../chat/store';
import type { TurnDeps } from '../chat/turn';
import { createRunningTurns } from '../chat/turn';
import type { ChatMessage } from '../chat/wire-types';
import { loadConfig } from '../config';
import { type Database, openDb, sqliteDatabase } from '../db';
import { createOfflineModel } from '../offline-model/model';
import { deriveSecretsKey } from '../secrets/crypto';
import { resolveMcpConfig } from './config';
import { createMcpManager, type McpManager } from './manager';
import { createMcpConnectionStore } from './oauth-store';
import { createPersonalMcp, type PersonalMcp } from './people';

/** The turns these tests run, as the app keeps them (`app.turns`). */
const turns = createRunningTurns();

const appDir = path.resolve(import.meta.dirname, '../..');
const REDIRECT = 'http://127.0.0.1:3000/api/mcp/oauth/callback';
let tmp: string;
let db: Database;
let store: ChatStore;
let server: OAuthMcpServer;
let manager: McpManager;
let people: PersonalMcp;
const logged: string[] = [];

async function deps(userId: string): Promise<TurnDeps> {
  const config = loadConfig({ appDir, env: { SKILLCHAT_DB: path.join(tmp, 'chat.db') }, home: path.join(tmp, 'h') });
  const mcpConfig = resolveMcpConfig({ mcpServers: { notes: { url: server.url, auth: { kind: 'oauth' } } } });
  return {
    store,
    turns,
    config,
    skills: { skills: [] },
    model: { model: createOfflineModel(), label: 'Offline model (built-in)' },
    access: createAccessResolver(config),
    mcp: { manager, config: mcpConfig, person: await people.forPerson(userId) },
  };
}

type Part = { type: string; toolName?: string; state: string; output?: Record<string, unknown>; errorText?: string };
const toolParts = (m: ChatMessage) => m.parts.filter((p) => p.type === 'dynamic-tool') as unknown as Part[];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-mcp-oauth-turn-'));
  db = sqliteDatabase(openDb(path.join(tmp, 'chat.db')));
  store = createDbChatStore(db);
  server = await startOAuthMcpServer({ stepUpScope: 'mcp:write' });
  const config = resolveMcpConfig({ mcpServers: { notes: { url: server.url, auth: { kind: 'oauth' } } } });
  manager = createMcpManager(config, { env: {}, appDir, log: (l) => logged.push(l) });
  manager.start();
  people = createPersonalMcp({
    config,
    manager,
    store: createMcpConnectionStore(db, () => deriveSecretsKey('an auth secret of thirty-two characters!')),
    env: {},
    log: (l) => logged.push(l),
  });
  server.approveAs = 'alice';
  const start = await people.begin('alice', 'notes', { redirectUrl: REDIRECT });
  if (start.connected) throw new Error('expected a sign-in');
  const back = await fetch(start.authorizationUrl, { redirect: 'manual' });
  await people.finish('alice', new URL(back.headers.get('location')!).searchParams);
});

afterAll(async () => {
  await people.close();
  await manager.close();
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('a server that signs each person in, in a turn', () => {
  it('calls the tool as the connected person; another person is told to connect; no token is stored or shown', async () => {
    const warn = vi.spyOn(console, 'warn');
    const error = vi.spyOn(console, 'error');
    const { chat } = await store.createChat({ id: 'alice-chat' });
    const { messages } = await runTurnToEnd(chat.id, { text: 'mcp.notes.whoami {}' }, await deps('alice'));
    expect(toolParts(messages.at(-1)!)[0]).toMatchObject({
      toolName: 'mcp_notes_whoami',
      state: 'output-available',
      output: { server: 'notes', tool: 'whoami', text: 'signed in as alice' },
    });

    const bobChat = await store.createChat({ id: 'bob-chat' });
    const bob = await runTurnToEnd(bobChat.chat.id, { text: 'mcp.notes.whoami {}' }, await deps('bob'));
    const [part] = toolParts(bob.messages.at(-1)!);
    // Not an error: a result that tells the model the person must connect, which the card turns into Connect.
    expect(part).toMatchObject({
      state: 'output-available',
      output: { server: 'notes', connect: { server: 'notes' } },
    });
    expect(String(part!.output!.text)).toMatch(/has not connected it yet/);

    const stored = JSON.stringify(await store.loadChatView('alice-chat'));
    const exported = [
      exportChat((await store.loadChatView('alice-chat'))!, 'json').body,
      exportChat((await store.loadChatView('alice-chat'))!, 'md').body,
    ].join('\n');
    const admin = JSON.stringify(buildMcpAdmin(manager.list(), resolveMcpConfig({}), await people.connections(null)));
    const logs = JSON.stringify([logged, warn.mock.calls, error.mock.calls]);
    expect(server.issued.length).toBeGreaterThanOrEqual(2);
    for (const token of server.issued) {
      for (const [where, text] of Object.entries({ stored, exported, admin, logs })) {
        expect(text.includes(token), `${where} holds a token`).toBe(false);
      }
    }
    expect(stored).toContain('signed in as alice');
    warn.mockRestore();
    error.mockRestore();
  });

  it('offers one "connect to use" tool per server when nobody has listed its tools yet', async () => {
    const fresh = createPersonalMcp({
      config: resolveMcpConfig({ mcpServers: { notes: { url: server.url, auth: { kind: 'oauth' } } } }),
      manager,
      store: createMcpConnectionStore(db, () => deriveSecretsKey('an auth secret of thirty-two characters!')),
      env: {},
    });
    expect((await fresh.forPerson('carol')).servers).toEqual([{ label: 'notes', connected: false, tools: [] }]);
    const { chat } = await store.createChat({ id: 'carol-chat' });
    const d = await deps('carol');
    d.mcp = { ...d.mcp!, person: await fresh.forPerson('carol') };
    const { messages } = await runTurnToEnd(chat.id, { text: 'mcp.notes.connect {}' }, d);
    expect(toolParts(messages.at(-1)!)[0]).toMatchObject({
      toolName: 'mcp_notes_connect',
      output: { connect: { server: 'notes' } },
    });
    await fresh.close();
  });

  it('a call the server refuses for want of scope asks the person to connect again to grant it', async () => {
    const { chat } = await store.createChat({ id: 'alice-publish' });
    const { messages } = await runTurnToEnd(chat.id, { text: 'mcp.notes.publish {}' }, await deps('alice'));
    const [part] = toolParts(messages.at(-1)!);
    expect(part).toMatchObject({
      state: 'output-available',
      output: { server: 'notes', tool: 'publish', connect: { server: 'notes', scopes: ['mcp:write'] } },
    });
    expect(String(part!.output!.text)).toMatch(/connect again to grant mcp:write/);
  });
});
