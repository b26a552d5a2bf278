/**
 * The model connection store on both databases: `server/model/connections.test.ts` runs it on SQLite,
 * `connections.pg.test.ts` on a scratch PostgreSQL. `open` gives a fresh, migrated, empty database for each test.
 * Names resolve through a table here (no DNS); nothing is dialled.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import { getModelConnection, listModelConnections } from '../../server/db/model-connections';
import type { Resolver } from '../../server/egress/address';
import { type ConnectionStore, createConnectionStore } from '../../server/model/connections';
import { deriveSecretsKey } from '../../server/secrets/crypto';

export interface OpenedDatabase {
  d: Database;
  close(): Promise<void> | void;
}

const KEY = deriveSecretsKey('an auth secret of at least thirty-two characters');
const OTHER_KEY = deriveSecretsKey('another auth secret, also thirty-two characters');
const API_KEY = 'sk-connection-secret-4242';

const NAMES: Record<string, string[]> = {
  'vllm.lan': ['10.1.2.3'],
  'metadata.test': ['169.254.169.254'],
  'sneaky.test': ['10.1.2.3', '169.254.169.254'],
};
const resolve: Resolver = async (host) => {
  const found = NAMES[host];
  if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: 4 as const }));
};

export function describeConnectionStore(dialect: string, open: () => Promise<OpenedDatabase>): void {
  describe(`model connection store (${dialect})`, () => {
    let opened: OpenedDatabase;
    let store: ConnectionStore;
    beforeEach(async () => {
      opened = await open();
      store = createConnectionStore(opened.d, () => KEY, { resolve });
    });
    afterEach(async () => {
      await opened.close();
    });

    it('adds a compatible endpoint: the key is sealed, listed as set, opened only for the registry', async () => {
      const added = await store.add({
        kind: 'compatible',
        baseUrl: 'http://127.0.0.1:8000/v1/',
        apiKey: `  ${API_KEY} `,
        models: ['b-model', 'a-model', 'b-model'],
      });
      expect(added).toEqual({
        id: expect.stringMatching(/^conn-[0-9a-f]{8}$/),
        kind: 'compatible',
        name: '127.0.0.1:8000',
        baseUrl: 'http://127.0.0.1:8000/v1',
        models: ['b-model', 'a-model'],
        keySet: true,
        updatedAt: expect.any(String),
      });
      expect(await store.list()).toEqual([added]);
      expect(JSON.stringify(await store.list())).not.toContain('connection-secret');
      const row = await getModelConnection(added.id, opened.d);
      expect(JSON.stringify(row)).not.toContain('connection-secret');
      expect(await store.resolved()).toEqual([
        {
          id: added.id,
          kind: 'compatible',
          name: '127.0.0.1:8000',
          baseUrl: 'http://127.0.0.1:8000/v1',
          models: ['b-model', 'a-model'],
          apiKey: API_KEY,
        },
      ]);
    });

    it('edits: no key keeps it, an empty key removes it, a new base URL wants the key again', async () => {
      const { id } = await store.add({ kind: 'compatible', baseUrl: 'http://vllm.lan:8000/v1', apiKey: API_KEY });
      const renamed = await store.update(id, { kind: 'compatible', name: 'Team vLLM', models: null });
      expect(renamed).toMatchObject({
        name: 'Team vLLM',
        keySet: true,
        models: null,
        baseUrl: 'http://vllm.lan:8000/v1',
      });
      expect((await store.get(id))?.apiKey).toBe(API_KEY);
      await expect(store.update(id, { kind: 'compatible', baseUrl: 'http://127.0.0.1:9999/v1' })).rejects.toThrow(
        /enter the key again/,
      );
      const moved = await store.update(id, {
        kind: 'compatible',
        baseUrl: 'http://127.0.0.1:9999/v1',
        apiKey: 'sk-new-key-0000',
      });
      expect(moved).toMatchObject({ baseUrl: 'http://127.0.0.1:9999/v1', keySet: true, name: 'Team vLLM' });
      expect((await store.get(id))?.apiKey).toBe('sk-new-key-0000');
      expect(await store.update(id, { kind: 'compatible', apiKey: '' })).toMatchObject({ keySet: false });
      expect((await store.get(id))?.apiKey).toBeUndefined();
      await expect(store.update(id, { kind: 'ollama' })).rejects.toThrow(/remove it and add another kind/);
      await expect(store.update('conn-nope', { kind: 'compatible' })).rejects.toMatchObject({ status: 404 });
    });

    it('each kind: defaults, and what it must or must not have', async () => {
      const openai = await store.add({ kind: 'openai', apiKey: API_KEY });
      expect(openai).toMatchObject({ name: 'OpenAI', baseUrl: 'https://api.openai.com/v1', models: null });
      const anthropic = await store.add({ kind: 'anthropic', apiKey: API_KEY, models: ['claude-sonnet-4-5'] });
      expect(anthropic).toMatchObject({ name: 'Anthropic', baseUrl: 'https://api.anthropic.com/v1' });
      const ollama = await store.add({ kind: 'ollama', baseUrl: 'http://10.0.0.7:11434/v1/' });
      expect(ollama).toMatchObject({
        name: 'Ollama at 10.0.0.7:11434',
        baseUrl: 'http://10.0.0.7:11434',
        keySet: false,
      });
      await expect(store.add({ kind: 'openai' })).rejects.toThrow('OpenAI needs a key');
      await expect(store.add({ kind: 'ollama', apiKey: API_KEY })).rejects.toThrow('An Ollama takes no key');
      await expect(store.add({ kind: 'compatible' })).rejects.toThrow(/needs its base URL/);
      await expect(store.add({ kind: 'compatible', baseUrl: 'ftp://x/v1' })).rejects.toThrow(/http:\/\/ or https/);
      await expect(store.add({ kind: 'compatible', baseUrl: 'http://u:pw@127.0.0.1/v1' })).rejects.toThrow(
        /key field, not in the base URL/,
      );
      await expect(store.add({ kind: 'compatible', baseUrl: 'http://127.0.0.1/v1', apiKey: 'short' })).rejects.toThrow(
        /at least 8/,
      );
      expect((await listModelConnections(opened.d)).map((c) => c.kind)).toEqual(['openai', 'anthropic', 'ollama']);
    });

    it('lists connections in the order they were added, also within one millisecond', async () => {
      const sameTime = createConnectionStore(opened.d, () => KEY, { resolve, now: () => new Date(1_795_000_000_000) });
      const added: string[] = [];
      for (const port of [9001, 9002, 9003, 9004, 9005, 9006]) {
        added.push((await sameTime.add({ kind: 'ollama', baseUrl: `http://127.0.0.1:${port}` })).id);
      }
      expect((await sameTime.list()).map((c) => c.id)).toEqual(added);
    });

    it('refuses metadata and link-local addresses, literal or behind a name; allows loopback and the LAN', async () => {
      for (const baseUrl of [
        'http://169.254.169.254/v1',
        'http://[::ffff:169.254.169.254]/v1',
        'http://metadata.test/v1',
        'http://sneaky.test/v1',
        'http://100.100.100.200/v1',
        'http://[fd00:ec2::254]/v1',
        'http://168.63.129.16/v1',
      ]) {
        await expect(store.add({ kind: 'compatible', baseUrl }), baseUrl).rejects.toThrow(/no model server is there/);
      }
      expect(await store.list()).toEqual([]);
      for (const baseUrl of [
        'http://127.0.0.1:8000/v1',
        'http://vllm.lan/v1',
        'http://100.101.1.2/v1',
        'http://[fd12::1]/v1',
      ]) {
        await expect(store.add({ kind: 'compatible', baseUrl }), baseUrl).resolves.toMatchObject({ baseUrl });
      }
    });

    it('a key stored under another secrets key is reported, and never used as garbage', async () => {
      const { id } = await store.add({ kind: 'compatible', baseUrl: 'http://127.0.0.1:8000/v1', apiKey: API_KEY });
      const later = createConnectionStore(opened.d, () => OTHER_KEY, { resolve });
      expect((await later.list())[0]).toMatchObject({ keySet: true, keyProblem: expect.stringMatching(/replace it/) });
      expect((await later.get(id))?.apiKey).toBeUndefined();
      await later.update(id, { kind: 'compatible', apiKey: 'sk-written-again' });
      expect((await later.get(id))?.apiKey).toBe('sk-written-again');
      expect((await later.list())[0]?.keyProblem).toBeUndefined();
    });

    it('removes a connection', async () => {
      const { id } = await store.add({ kind: 'ollama' });
      expect(await store.remove(id)).toBe(true);
      expect(await store.remove(id)).toBe(false);
      expect(await store.list()).toEqual([]);
    });
  });
}
