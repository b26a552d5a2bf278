/**
 * An MCP server's question during a tool call, in a chat turn: a real SDK server (test/mcp/elicit-server.ts), the
 * app's connection manager, `runChatTurn` with the offline model. The turn's answer carries the form as a
 * `data-elicitation` part and the call waits; the person's reply goes back and the tool's result follows. The turns
 * here are never read (a closed tab): what a reload shows is the stored answer, and the reply still works.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startElicitServer } from '../../test/mcp/elicit-server';
import type { TestHttpServer } from '../../test/mcp/servers';
import { offlineTurnDeps } from '../../test/turn-deps';
import { until } from '../../test/until';
import { createDbChatStore } from '../chat/db-store';
import { replyToElicitation } from '../chat/elicitations';
import type { ChatStore } from '../chat/store';
import { createRunningTurns, runChatTurn, stopChat, type TurnDeps } from '../chat/turn';
import type { ChatMessage, ElicitationPart } from '../chat/wire-types';
import { openDb, sqliteDatabase } from '../db';
import { type McpConfig, resolveMcpConfig } from './config';
import { createMcpManager, type McpManager } from './manager';

/** The turns these tests run, as the app keeps them (`app.turns`). */
const turns = createRunningTurns();

const appDir = path.resolve(import.meta.dirname, '../..');
let tmp: string;
let store: ChatStore;
let http: TestHttpServer;
let manager: McpManager;
let mcpConfig: McpConfig;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-mcp-elicit-'));
  store = createDbChatStore(sqliteDatabase(openDb(path.join(tmp, 'chat.db'))));
  http = await startElicitServer();
  mcpConfig = { ...resolveMcpConfig({ mcpServers: { trips: { url: http.url } } }), connectTimeoutMs: 5000 };
  manager = createMcpManager(mcpConfig, { env: {}, appDir, log: () => {} });
  manager.start();
  await until(() => (manager.connected().length === 1 ? true : undefined));
});
afterAll(async () => {
  await manager.close();
  await http.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function deps(): TurnDeps {
  return { ...offlineTurnDeps(store, tmp, 0, turns), mcp: { manager, config: mcpConfig } };
}

type Card = { type: 'data-elicitation'; id: string; data: ElicitationPart };
const cardsOf = (m: ChatMessage | undefined) =>
  (m?.parts ?? []).filter((p) => p.type === 'data-elicitation') as unknown as Card[];
const toolOf = (m: ChatMessage) =>
  m.parts.find((p) => p.type === 'dynamic-tool') as unknown as { state: string; output?: { text: string } };

let n = 0;
/** Starts a turn nobody reads (a closed tab) and waits until its stored answer shows a waiting card. */
async function startWaiting(chatId: string, text: string): Promise<Card> {
  await store.createChat({ id: chatId });
  n += 1;
  await runChatTurn(
    { chatId, trigger: 'submit-message', message: { id: `e${n}`, role: 'user', parts: [{ type: 'text', text }] } },
    deps(),
  );
  return until(async () => {
    const card = cardsOf((await store.getMessages(chatId)).at(-1)).at(0);
    return card?.data.status === 'waiting' ? card : undefined;
  });
}

async function ended(chatId: string): Promise<ChatMessage> {
  await turns.wait(chatId);
  return (await store.getMessages(chatId)).at(-1)!;
}

describe('elicitation in a chat turn', () => {
  it('stores the form while the call waits; the reply reaches the server and the tool result follows', async () => {
    const card = await startWaiting('accept', 'mcp.trips.book {"city": "Lisbon"}');
    expect(card.data).toMatchObject({
      server: 'trips',
      tool: 'book',
      view: {
        mode: 'form',
        message: 'Details for your trip to Lisbon',
        fields: [
          { name: 'date', kind: 'string', format: 'date', title: 'Travel date', required: true },
          { name: 'seats', kind: 'integer', default: 2 },
          { name: 'class', kind: 'enum', options: [{ label: 'Economy' }, { label: 'Business' }] },
        ],
      },
    });
    // Wrong values are refused with each field's problem; the question still waits.
    expect(() => replyToElicitation(turns, 'accept', { id: card.id, action: 'accept', values: { seats: 0 } })).toThrow(
      '"Travel date" is required; "Seats" must be at least 1.',
    );
    expect(() => replyToElicitation(turns, 'accept', { id: 'nope', action: 'decline' })).toThrow(
      'No question "nope" is waiting in this chat',
    );
    replyToElicitation(turns, 'accept', {
      id: card.id,
      action: 'accept',
      values: { date: '2027-01-02', class: 'business' },
    });
    const answer = await ended('accept');
    expect(cardsOf(answer)).toMatchObject([{ id: card.id, data: { status: 'accept' } }]);
    expect(toolOf(answer)).toMatchObject({
      state: 'output-available',
      output: { text: 'booked Lisbon on 2027-01-02, 2 seats, business' },
    });
    // Answered once: a second reply finds nothing waiting.
    expect(() => replyToElicitation(turns, 'accept', { id: card.id, action: 'decline' })).toThrow(/Nothing is waiting/);
  });

  it('decline and cancel go back to the server', async () => {
    for (const action of ['decline', 'cancel'] as const) {
      const card = await startWaiting(`no-${action}`, 'mcp.trips.book {"city": "Porto"}');
      replyToElicitation(turns, `no-${action}`, { id: card.id, action });
      const answer = await ended(`no-${action}`);
      expect(cardsOf(answer)[0]!.data.status).toBe(action);
      expect(toolOf(answer).output?.text).toBe(`the person chose ${action}`);
    }
  });

  it('shows a URL request as its link; Stop withdraws a question still waiting', async () => {
    const card = await startWaiting('url', 'mcp.trips.signin');
    expect(card.data.view).toEqual({
      mode: 'url',
      message: 'Sign in to the test service',
      url: 'https://auth.example/signin?state=abc',
      host: 'auth.example',
    });
    await stopChat('url', { turns });
    const answer = (await store.getMessages('url')).at(-1)!;
    expect(cardsOf(answer)[0]!.data.status).toBe('withdrawn');
  });
});
