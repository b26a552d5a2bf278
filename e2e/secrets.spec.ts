/**
 * Secrets on /admin and /settings, on a server of its own with secrets in its config: the admin sees where each
 * value comes from and sets, replaces and clears a shared one; a person sets and clears their own. A value typed in
 * is never shown back: not in the page, not in an API answer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { freePort, type OwnServer, startOwnServer } from './own-server';
import { screenshotPath } from './screenshot-path';

test.describe.configure({ mode: 'serial' });

const ENV_VALUE = 'ghp_value-from-the-environment-1';
const SHARED_VALUE = 'crm-shared-value-typed-in-2';
const REPLACED_VALUE = 'crm-shared-value-replaced-3';
const OWN_VALUE = 'my-own-token-value-4';

let server: OwnServer;
let tmp: string;

test.beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-secrets-')));
  fs.mkdirSync(path.join(tmp, 'home'));
  const config = path.join(tmp, 'skillchat.config.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      secrets: {
        GITHUB_TOKEN: {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own `${env:NAME}` syntax
          value: '${env:E2E_GH_TOKEN}',
          skills: ['github-*'],
          hosts: ['api.github.com'],
          header: 'Authorization: Bearer {}',
        },
        CRM_KEY: { skills: ['crm'], hosts: ['crm.example.org'] },
        MY_TOKEN: { skills: ['notes'], hosts: ['api.example.org'], header: 'X-Token: {}', personal: true },
      },
    }),
  );
  server = await startOwnServer(await freePort(), {
    SKILLCHAT_DB: path.join(tmp, 'secrets.db'),
    SKILLCHAT_HOME: path.join(tmp, 'home'),
    SKILLCHAT_CONFIG: config,
    E2E_GH_TOKEN: ENV_VALUE,
  });
});

test.afterAll(async () => {
  await server?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('/admin shows each secret and where its value comes from; a shared one is set, replaced and cleared', async ({
  page,
}) => {
  await page.goto(`${server.origin}/admin#secrets`);
  const section = page.getByTestId('secrets');
  const row = (name: string) => section.locator(`[data-testid="secret-row"][data-secret="${name}"]`);

  await expect(row('GITHUB_TOKEN')).toContainText('github-*');
  await expect(row('GITHUB_TOKEN')).toContainText('api.github.com');
  await expect(row('GITHUB_TOKEN')).toContainText('Authorization: Bearer {}');
  await expect(row('GITHUB_TOKEN').getByTestId('secret-source')).toHaveText('environment E2E_GH_TOKEN');
  await expect(row('GITHUB_TOKEN').getByTestId('secret-form')).toHaveCount(0);
  await expect(row('MY_TOKEN')).toContainText('personal');
  await expect(row('MY_TOKEN').getByTestId('secret-form')).toHaveCount(0);
  await expect(row('CRM_KEY')).toContainText('environment variable');
  await expect(row('CRM_KEY').getByTestId('secret-source')).toHaveText('not set');

  const input = row('CRM_KEY').getByTestId('secret-value');
  await expect(input).toHaveAttribute('type', 'password');
  await input.fill(SHARED_VALUE);
  await row('CRM_KEY').getByTestId('secret-save').click();
  await expect(row('CRM_KEY').getByTestId('secret-source')).toContainText('stored on this server');
  await expect(row('CRM_KEY')).toHaveAttribute('data-set', 'true');
  await expect(input).toHaveValue('');
  await expect(row('CRM_KEY').getByTestId('secret-save')).toHaveText('Replace');
  await section.scrollIntoViewIfNeeded();
  await section.screenshot({ path: screenshotPath('admin-secrets.png') });

  await input.fill(REPLACED_VALUE);
  await row('CRM_KEY').getByTestId('secret-save').click();
  await expect(input).toHaveValue('');
  const html = await page.content();
  for (const value of [ENV_VALUE, SHARED_VALUE, REPLACED_VALUE]) expect(html).not.toContain(value);

  await row('CRM_KEY').getByTestId('secret-clear').click();
  await expect(row('CRM_KEY').getByTestId('secret-source')).toHaveText('not set');
});

test('the admin API refuses what /admin may not change, as JSON with a code and a sentence', async ({ request }) => {
  const put = (name: string, data: unknown) =>
    request.put(`${server.origin}/api/admin/secrets/${name}`, { headers: { origin: server.origin }, data });
  const fromEnv = await put('GITHUB_TOKEN', { value: 'ghp_another-value-5' });
  expect(fromEnv.status()).toBe(409);
  expect(await fromEnv.json()).toEqual({
    code: 'conflict:secret',
    error: "GITHUB_TOKEN comes from the server's environment variable E2E_GH_TOKEN: change it there",
  });
  const short = await put('CRM_KEY', { value: 'short' });
  expect(short.status()).toBe(400);
  expect(await short.json()).toMatchObject({ code: 'bad_request:secret', error: expect.stringContaining('shorter') });
  expect((await put('NOT_CONFIGURED', { value: 'long-enough-value' })).status()).toBe(404);
  expect((await put('CRM_KEY', { nope: 1 })).status()).toBe(400);
});

test('/settings: a person sets, replaces and clears their own secret, and never sees it again', async ({ page }) => {
  await page.goto(`${server.origin}/settings`);
  const item = page.locator('[data-testid="personal-secret"][data-secret="MY_TOKEN"]');
  await expect(item).toContainText('notes');
  await expect(item).toContainText('api.example.org');
  await expect(item.getByTestId('personal-secret-status')).toHaveText('not set');
  // Only personal secrets are listed here.
  await expect(page.getByTestId('personal-secret')).toHaveCount(1);

  await item.getByTestId('secret-value').fill(OWN_VALUE);
  await item.getByTestId('secret-save').click();
  await expect(item.getByTestId('personal-secret-status')).toContainText('set, updated');
  await expect(item.getByTestId('secret-value')).toHaveValue('');
  expect(await page.content()).not.toContain(OWN_VALUE);
  await page.getByTestId('settings-page').screenshot({ path: screenshotPath('settings-secrets.png') });

  const listed = await page.request.get(`${server.origin}/api/me/secrets`);
  expect(listed.status()).toBe(200);
  const body = await listed.text();
  expect(body).not.toContain(OWN_VALUE);
  expect(JSON.parse(body)).toMatchObject({ secrets: [{ name: 'MY_TOKEN', set: true }] });

  // A shared secret is not a person's to set.
  const shared = await page.request.put(`${server.origin}/api/me/secrets/CRM_KEY`, {
    headers: { origin: server.origin },
    data: { value: 'a person tries this' },
  });
  expect(shared.status()).toBe(403);
  expect(await shared.json()).toEqual({
    code: 'forbidden:secret',
    error: 'CRM_KEY is shared: an admin sets it on /admin',
  });

  await item.getByTestId('secret-clear').click();
  await expect(item.getByTestId('personal-secret-status')).toHaveText('not set');
});
