import { describe, expect, it } from 'vitest';
import type { SecretsConfig } from '../egress/config';
import { OTHER_KEY_MESSAGE, SecretKeyError } from './crypto';
import { resolveRunSecrets } from './resolve';
import type { SecretOwner } from './store';

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
  MY_TOKEN: { skills: ['github-*', 'notes'], hosts: ['api.example.org'], personal: true },
  SHORT_ONE: { value: '${env:SHORT}', skills: ['short'], hosts: [], personal: false },
};
// biome-ignore-end lint/suspicious/noTemplateCurlyInString: end

/** A store that holds rows by `owner/name` (owner `*` for the shared value). */
function memoryStore(rows: Record<string, string>, broken: string[] = []) {
  return {
    async get(name: string, owner: SecretOwner) {
      const key = `${owner ?? '*'}/${name}`;
      if (broken.includes(key)) throw new SecretKeyError(OTHER_KEY_MESSAGE);
      return rows[key] ?? null;
    },
  };
}

describe('resolveRunSecrets', () => {
  it('gives only the secrets whose skills globs match an active skill, with how each reaches the run', async () => {
    const got = await resolveRunSecrets({
      config,
      person: 'alice',
      skills: ['github-issues'],
      env: { GH_TOKEN: 'ghp_from-the-env' },
      store: memoryStore({ 'alice/MY_TOKEN': 'alice-own-token' }),
    });
    expect(got).toEqual([
      {
        name: 'GITHUB_TOKEN',
        value: 'ghp_from-the-env',
        header: 'Authorization: Bearer {}',
        hosts: ['api.github.com'],
        skills: ['github-*'],
        personal: false,
      },
      {
        name: 'MY_TOKEN',
        value: 'alice-own-token',
        hosts: ['api.example.org'],
        skills: ['github-*', 'notes'],
        personal: true,
      },
    ]);
    expect(
      await resolveRunSecrets({ config, person: 'alice', skills: ['pdf'], env: {}, store: memoryStore({}) }),
    ).toEqual([]);
  });

  it('reads the environment at each call', async () => {
    const env: Record<string, string | undefined> = {};
    const run = () =>
      resolveRunSecrets({ config, person: null, skills: ['github-x'], env, store: memoryStore({}) }).then((s) => s[0]);
    expect(await run()).toMatchObject({
      value: null,
      missing: "needs GITHUB_TOKEN: the server's environment variable GH_TOKEN is not set",
    });
    env.GH_TOKEN = 'ghp_set-later-1';
    expect((await run())!.value).toBe('ghp_set-later-1');
  });

  it('a personal secret is that person’s row only: never the shared one, never another person’s', async () => {
    const store = memoryStore({ '*/MY_TOKEN': 'shared-token-0', 'bob/MY_TOKEN': 'bob-token-2222' });
    const forAlice = await resolveRunSecrets({ config, person: 'alice', skills: ['notes'], env: {}, store });
    expect(forAlice).toEqual([
      expect.objectContaining({ name: 'MY_TOKEN', value: null, missing: 'needs your MY_TOKEN: set it on /settings' }),
    ]);
    const nobody = await resolveRunSecrets({ config, person: null, skills: ['notes'], env: {}, store });
    expect(nobody[0]).toMatchObject({ value: null, missing: 'needs your MY_TOKEN: set it on /settings' });
    const forBob = await resolveRunSecrets({ config, person: 'bob', skills: ['notes'], env: {}, store });
    expect(forBob[0]!.value).toBe('bob-token-2222');
  });

  it('a shared stored secret comes from the shared row, and says who sets it when absent', async () => {
    const run = (rows: Record<string, string>) =>
      resolveRunSecrets({ config, person: 'alice', skills: ['crm'], env: {}, store: memoryStore(rows) });
    expect((await run({ '*/CRM_KEY': 'crm-shared-key' }))[0]!.value).toBe('crm-shared-key');
    expect((await run({ 'alice/CRM_KEY': 'alice-crm-key' }))[0]).toMatchObject({
      value: null,
      missing: 'needs CRM_KEY: an admin sets it on /admin',
    });
  });

  it('refuses a value under 8 characters, and a row under another key, with a sentence', async () => {
    const short = await resolveRunSecrets({
      config,
      person: null,
      skills: ['short'],
      env: { SHORT: 'abc' },
      store: memoryStore({}),
    });
    expect(short[0]).toMatchObject({ value: null, missing: expect.stringMatching(/SHORT_ONE .*shorter than 8/) });
    const other = await resolveRunSecrets({
      config,
      person: null,
      skills: ['crm'],
      env: {},
      store: memoryStore({}, ['*/CRM_KEY']),
    });
    expect(other[0]!.missing).toMatch(/^CRM_KEY cannot be used: .*SKILLCHAT_AUTH_SECRET changed/);
  });

  it('never uses a literal value that slipped past the config check', async () => {
    const got = await resolveRunSecrets({
      config: { LITERAL: { value: 'ghp_in-the-file', skills: ['*'], hosts: [], personal: false } },
      person: null,
      skills: ['any'],
      env: {},
      store: memoryStore({}),
    });
    expect(got[0]).toMatchObject({ value: null });
    expect(JSON.stringify(got)).not.toContain('ghp_in-the-file');
  });
});
