/**
 * The registry and the connections added on /admin: a connection stored while the registry runs is offered after
 * `refresh()` (what /admin's routes call), with no restart; a chat that picks one of its models runs its turn
 * through it (a local OpenAI-compatible fake replaying recorded Chat Completions); the environment wins.
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ReplayServer, startReplayServer, streamActivation } from '../../test/model/replay-server';
import { closeDb, type Db, openDb, sqliteDatabase } from '../db/client';
import { deriveSecretsKey } from '../secrets/crypto';
import { type ConnectionStore, createConnectionStore } from './connections';
import { createModelRegistry } from './registry';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const KEY = 'sk-compatible-key-777';

let server: ReplayServer;
let db: Db;
let store: ConnectionStore;

beforeAll(async () => {
  server = await startReplayServer((request) => {
    if (request.url === '/v1/models')
      return { json: { object: 'list', data: [{ id: 'replay-mini' }, { id: 'replay-max' }] } };
    const last = (request.body as { messages: { role: string }[] }).messages.at(-1);
    return {
      sse: fixture(last?.role === 'tool' ? 'chat-completions-text.sse.txt' : 'chat-completions-tool-call.sse.txt'),
    };
  });
});
afterAll(() => server.close());
beforeEach(() => {
  db = openDb(':memory:');
  store = createConnectionStore(sqliteDatabase(db), () =>
    deriveSecretsKey('an auth secret of at least thirty-two characters'),
  );
});
afterEach(() => closeDb(db));

const registryWith = (env: Record<string, string> = {}) =>
  createModelRegistry({ env, ollamaOrigin: null, connections: () => store.resolved() });

describe('connections added on /admin', () => {
  it('are offered after refresh(), with no restart; a turn through one reaches its endpoint with its key', async () => {
    const registry = registryWith();
    expect((await registry.list()).map((m) => m.id)).toEqual(['offline:builtin']);

    const { id } = await store.add({
      kind: 'compatible',
      name: 'Fake vLLM',
      baseUrl: `${server.origin}/v1`,
      apiKey: KEY,
    });
    await registry.refresh();
    expect(await registry.list()).toEqual([
      { id: 'offline:builtin', label: 'Offline model (built-in)', provider: 'offline' },
      { id: `${id}:replay-max`, label: 'replay-max via Fake vLLM', provider: 'compatible' },
      { id: `${id}:replay-mini`, label: 'replay-mini via Fake vLLM', provider: 'compatible' },
    ]);
    expect(registry.known().map((m) => m.id)).toContain(`${id}:replay-mini`);

    const before = server.received.length;
    const { choice, note } = await registry.choose(`${id}:replay-mini`);
    expect(note).toBeUndefined();
    const { result, executed } = await streamActivation(choice.model, { name: 'csv-to-json', instructions: '# CSV' });
    expect(executed).toEqual([{ name: 'csv-to-json' }]);
    expect(await result.text).toBe("I activated **csv-to-json**. Paste your CSV and I'll convert it to JSON.");
    const turn = server.received.slice(before).filter((r) => r.url === '/v1/chat/completions');
    expect(turn).toHaveLength(2);
    expect(turn.map((r) => (r.body as { model: string }).model)).toEqual(['replay-mini', 'replay-mini']);
    expect(turn[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('a chosen list is offered without asking the endpoint; removing the connection takes its models away', async () => {
    const registry = registryWith();
    const { id } = await store.add({ kind: 'compatible', baseUrl: `${server.origin}/v1`, models: ['replay-mini'] });
    const asked = server.received.length;
    await registry.refresh();
    expect((await registry.list()).map((m) => m.id)).toEqual(['offline:builtin', `${id}:replay-mini`]);
    expect(server.received.length).toBe(asked);
    await store.remove(id);
    await registry.refresh();
    expect((await registry.list()).map((m) => m.id)).toEqual(['offline:builtin']);
    expect((await registry.choose(`${id}:replay-mini`)).note).toMatch(/not available now/);
  });

  it('the environment wins over a stored connection of the same provider, and /admin is told why', async () => {
    const openai = await store.add({ kind: 'openai', apiKey: KEY, models: ['gpt-4o'] });
    const anthropic = await store.add({ kind: 'anthropic', apiKey: KEY, models: ['claude-haiku-4-5'] });
    const registry = registryWith({ OPENAI_API_KEY: 'sk-from-env' });
    const { models, overridden } = await registry.origins();
    expect(models.map((m) => [m.id, m.source, m.connectionId])).toEqual([
      ['offline:builtin', 'built-in', undefined],
      ['openai:gpt-4.1-mini', 'environment', undefined],
      [`${anthropic.id}:claude-haiku-4-5`, 'admin', anthropic.id],
    ]);
    expect(overridden).toEqual([{ connectionId: openai.id, reason: expect.stringMatching(/^OPENAI_API_KEY is set/) }]);
  });

  it('a connection listing every model that does not answer contributes none, and is asked again', async () => {
    const registry = registryWith();
    await store.add({ kind: 'compatible', baseUrl: 'http://127.0.0.1:9/v1' });
    await registry.refresh();
    expect((await registry.list()).map((m) => m.id)).toEqual(['offline:builtin']);
  });
});
