import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config';
import { resolveEgressConfig, secretsConfigSchema } from './config';

// biome-ignore-start lint/suspicious/noTemplateCurlyInString: the config's own `${env:NAME}` syntax
describe('the secrets config check', () => {
  const problems = (secrets: unknown) => {
    const parsed = secretsConfigSchema.safeParse(secrets);
    return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  it('takes ${env:NAME}, or no value (set on /admin or /settings)', () => {
    expect(
      problems({
        GITHUB_TOKEN: { value: '${env:GITHUB_TOKEN}', skills: ['github-*'], header: 'Authorization: Bearer {}' },
        CRM_KEY: { skills: ['crm'] },
        MY_TOKEN: { skills: ['notes'], personal: true },
      }),
    ).toEqual([]);
  });

  it('refuses a value written in clear, naming where, never echoing it', () => {
    const found = problems({ GITHUB_TOKEN: { value: 'ghp_literal-token', skills: ['github-*'] } });
    expect(found).toEqual([
      'GITHUB_TOKEN.value: must be ${env:NAME} (the value itself never goes in the config file), or absent to set it on /admin',
    ]);
    expect(problems({ A_TOKEN: { value: 'Bearer ${env:X}', skills: ['a'] } })).toHaveLength(1);
  });

  it('refuses a personal secret with a config value, and a name that is no environment variable', () => {
    expect(problems({ MY_TOKEN: { value: '${env:MINE}', skills: ['notes'], personal: true } })).toEqual([
      'MY_TOKEN: a personal secret has no value in the config: each person sets theirs on /settings',
    ]);
    expect(problems({ 'github-token': { skills: ['a'] } })).toEqual(['github-token: Invalid key in record']);
  });

  it('resolveEgressConfig checks the secrets too', () => {
    expect(() =>
      resolveEgressConfig({ secrets: { T_TOKEN: { value: 'in-clear-value', skills: ['x'] } } }, '/app', '/app/data'),
    ).toThrow(/must be \$\{env:NAME\}/);
    expect(resolveEgressConfig({}, '/app', '/app/data').secrets).toEqual({});
  });

  it('a config file with a value in clear does not load (start-up stops with the sentence)', () => {
    const appDir = fs.mkdtempSync(path.join(os.tmpdir(), 'secrets-config-'));
    const write = (secrets: unknown) =>
      fs.writeFileSync(path.join(appDir, 'skillchat.config.json'), JSON.stringify({ secrets }));
    const load = () => loadConfig({ appDir, home: appDir, env: {} });
    try {
      write({ GITHUB_TOKEN: { value: 'ghp_literal-token', skills: ['github-*'] } });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow('secrets.GITHUB_TOKEN.value: must be ${env:NAME}');
      expect(load).not.toThrow(/ghp_literal/);
      write({ GITHUB_TOKEN: { value: '${env:GH}', skills: ['github-*'], header: 'Authorization: Bearer {}' } });
      expect(load().egress.secrets.GITHUB_TOKEN).toMatchObject({ hosts: [], personal: false, value: '${env:GH}' });
    } finally {
      fs.rmSync(appDir, { recursive: true, force: true });
    }
  });
});
// biome-ignore-end lint/suspicious/noTemplateCurlyInString: end
