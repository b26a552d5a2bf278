import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeDb, type Db, openDb, sqliteDatabase } from '../db/client';
import type { SecretsConfig } from '../egress/config';
import { deriveSecretsKey } from './crypto';
import { adminSecretViews, clearSecretValue, personalSecretViews, setSecretValue } from './manage';
import { createSecretStore, type SecretStore } from './store';

// biome-ignore-start lint/suspicious/noTemplateCurlyInString: the config's own `${env:NAME}` syntax
const config: SecretsConfig = {
  GITHUB_TOKEN: {
    value: '${env:GH_TOKEN}',
    skills: ['github-*'],
    hosts: ['api.github.com'],
    header: 'Authorization: Bearer {}',
    personal: false,
  },
  CRM_KEY: { skills: ['crm'], hosts: ['crm.example.org'], personal: false },
  MY_TOKEN: { skills: ['notes'], hosts: ['api.example.org'], header: 'X-Token: {}', personal: true },
};
// biome-ignore-end lint/suspicious/noTemplateCurlyInString: end

let db: Db;
let store: SecretStore;
beforeEach(() => {
  db = openDb(':memory:');
  store = createSecretStore(sqliteDatabase(db), () => deriveSecretsKey('an auth secret of thirty-two characters!'));
});
afterEach(() => closeDb(db));

describe('managing secrets', () => {
  it('/admin sees each secret, how it reaches the run and where its value comes from, never a value', async () => {
    await setSecretValue(config, store, null, 'CRM_KEY', 'crm-shared-key');
    await setSecretValue(config, store, 'alice', 'MY_TOKEN', 'alice-own-token');
    const views = await adminSecretViews(config, store, { GH_TOKEN: 'ghp_from-env-1' });
    expect(views).toEqual([
      expect.objectContaining({
        name: 'GITHUB_TOKEN',
        delivery: { kind: 'header', header: 'Authorization: Bearer {}' },
        source: 'environment',
        variable: 'GH_TOKEN',
        set: true,
        editable: false,
      }),
      expect.objectContaining({
        name: 'CRM_KEY',
        delivery: { kind: 'env' },
        source: 'stored',
        set: true,
        updatedAt: expect.any(String),
        editable: true,
      }),
      expect.objectContaining({ name: 'MY_TOKEN', personal: true, source: 'personal', editable: false }),
    ]);
    expect(JSON.stringify(views)).not.toMatch(/crm-shared-key|alice-own-token|ghp_from-env/);
    expect((await adminSecretViews(config, store, {}))[0]!.set).toBe(false);
  });

  it('an admin sets and clears only shared secrets that do not come from the environment', async () => {
    await expect(setSecretValue(config, store, null, 'GITHUB_TOKEN', 'ghp_value-123')).rejects.toMatchObject({
      code: 'conflict:secret',
      message: "GITHUB_TOKEN comes from the server's environment variable GH_TOKEN: change it there",
    });
    await expect(setSecretValue(config, store, null, 'MY_TOKEN', 'value-12345')).rejects.toMatchObject({
      code: 'conflict:secret',
    });
    await expect(setSecretValue(config, store, null, 'NOPE', 'value-12345')).rejects.toMatchObject({
      code: 'not_found:secret',
      status: 404,
    });
    await setSecretValue(config, store, null, 'CRM_KEY', 'crm-shared-key');
    expect(await clearSecretValue(config, store, null, 'CRM_KEY')).toBe(true);
    expect((await adminSecretViews(config, store, {}))[1]).toMatchObject({ set: false });
  });

  it('a person sets only their own value of a personal secret, and sees only theirs', async () => {
    await expect(setSecretValue(config, store, 'alice', 'CRM_KEY', 'crm-alice-key')).rejects.toMatchObject({
      code: 'forbidden:secret',
      message: 'CRM_KEY is shared: an admin sets it on /admin',
    });
    await setSecretValue(config, store, 'alice', 'MY_TOKEN', 'alice-own-token');
    expect(await personalSecretViews(config, store, 'alice')).toEqual([
      {
        name: 'MY_TOKEN',
        skills: ['notes'],
        hosts: ['api.example.org'],
        delivery: { kind: 'header', header: 'X-Token: {}' },
        set: true,
        updatedAt: expect.any(String),
      },
    ]);
    expect(await personalSecretViews(config, store, 'bob')).toEqual([expect.objectContaining({ set: false })]);
    expect(await clearSecretValue(config, store, 'bob', 'MY_TOKEN')).toBe(false);
    expect(await store.get('MY_TOKEN', 'alice')).toBe('alice-own-token');
  });
});
