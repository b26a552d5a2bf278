/**
 * /admin's Models section as its routes call it: adding, testing, editing and removing a connection against a local
 * fake, with the key in none of what goes back to the browser.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ReplayServer, startReplayServer } from '../../test/model/replay-server';
import { closeDb, type Db, openDb, sqliteDatabase } from '../db/client';
import { createConnectionStore } from '../model/connections';
import { createModelRegistry } from '../model/registry';
import { deriveSecretsKey } from '../secrets/crypto';
import { addConnection, loadAdminModels, removeConnection, testConnection, updateConnection } from './models';

const KEY = 'sk-admin-typed-key-31337';
let server: ReplayServer;
let db: Db;
let app: Parameters<typeof loadAdminModels>[0];

beforeAll(async () => {
  server = await startReplayServer((request) =>
    request.headers.authorization === `Bearer ${KEY}`
      ? { json: { object: 'list', data: [{ id: 'replay-mini' }] } }
      : { json: { error: 'bad key' }, status: 401 },
  );
});
afterAll(() => server.close());
beforeEach(() => {
  db = openDb(':memory:');
  const modelConnections = createConnectionStore(sqliteDatabase(db), () =>
    deriveSecretsKey('an auth secret of at least thirty-two characters'),
  );
  const models = createModelRegistry({ env: {}, ollamaOrigin: null, connections: () => modelConnections.resolved() });
  app = { models, modelConnections };
});
afterEach(() => closeDb(db));

describe('the Models section', () => {
  it('Test, add, list, edit, remove: the key never comes back', async () => {
    const baseUrl = `${server.origin}/v1`;
    const responses: unknown[] = [];
    const keep = <T>(value: T): T => {
      responses.push(value);
      return value;
    };

    expect(keep(await testConnection(app, { kind: 'compatible', baseUrl, apiKey: KEY }))).toEqual({
      ok: true,
      models: ['replay-mini'],
    });
    expect(keep(await testConnection(app, { kind: 'compatible', baseUrl, apiKey: 'sk-wrong-key-000' }))).toEqual({
      ok: false,
      problem: `${baseUrl} refused the key (HTTP 401): check it, and that it may list models`,
    });
    const added = keep(
      await addConnection(app, { kind: 'compatible', name: 'Fake', baseUrl, apiKey: KEY, models: null }),
    );
    // At once, without waiting for the registry's minute: a new chat's picker (`known()`) has the model.
    expect(app.models.known().map((m) => m.id)).toContain(`${added.id}:replay-mini`);

    // A saved connection is tested with its stored key, which goes only to the URL it was stored for.
    expect(keep(await testConnection(app, { id: added.id, kind: 'compatible', baseUrl }))).toEqual({
      ok: true,
      models: ['replay-mini'],
    });
    expect(
      keep(await testConnection(app, { id: added.id, kind: 'compatible', baseUrl: `${baseUrl}/other` })),
    ).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/wants a key/),
    });

    const listed = keep(await loadAdminModels(app));
    expect(listed.connections).toEqual([expect.objectContaining({ id: added.id, name: 'Fake', keySet: true })]);
    expect(listed.models.find((m) => m.connectionId === added.id)).toMatchObject({
      source: 'admin',
      label: 'replay-mini via Fake',
    });

    keep(await updateConnection(app, added.id, { kind: 'compatible', models: ['replay-mini'] }));
    expect(await removeConnection(app, added.id)).toBe(true);
    expect(app.models.known().map((m) => m.id)).toEqual(['offline:builtin']);

    for (const response of responses) expect(JSON.stringify(response)).not.toContain('admin-typed-key');
  });

  it('a bad form is a 400 naming the field', async () => {
    await expect(addConnection(app, { kind: 'gopher' })).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/kind is not right/),
    });
    await expect(
      addConnection(app, { kind: 'compatible', baseUrl: 'http://169.254.169.254/v1' }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/cloud metadata/),
    });
  });
});
