/**
 * Standing shell grants as a person meets them, with the shell set to ask: a command waits on its card; "Always allow
 * `echo …`" runs it and keeps the grant; the next `echo` runs with no card, while a command chained to something else
 * still asks; /settings lists the grant, and once it is revoked there `echo` asks again. Runs its own `next start`
 * (loopback, the local person) with SKILLCHAT_SHELL=ask and no skills of its own beyond the app's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { ChatPage } from './chat-page';
import { freePort, type OwnServer, startOwnServer } from './own-server';
import { screenshotPath } from './screenshot-path';

test.describe.configure({ mode: 'serial' });

let server: OwnServer;
let tmp: string;

test.beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-shell-grants-'));
  fs.mkdirSync(path.join(tmp, 'home'));
  server = await startOwnServer(await freePort(), {
    SKILLCHAT_DB: path.join(tmp, 'test.db'),
    SKILLCHAT_HOME: path.join(tmp, 'home'),
    SKILLCHAT_SHELL: 'ask',
    SKILLCHAT_WATCH: '0',
    SKILLCHAT_MODEL: 'offline:builtin',
    SKILLCHAT_OFFLINE_CHUNK_DELAY_MS: '0',
  });
});

test.afterAll(async () => {
  await server?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function command(chat: ChatPage, line: string) {
  await chat.page.goto(server.origin);
  await expect(chat.page.getByTestId('empty-chat')).toBeVisible();
  await chat.ready();
  await chat.send(`$ ${line}`);
  return chat.toolCards('sandbox.exec', chat.lastAnswer());
}

test('"Always allow" keeps a prefix: the next such command runs without a card, a chained one still asks', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const chat = new ChatPage(page);
  const first = await command(chat, 'echo first');
  await expect(first).toHaveAttribute('data-state', 'waiting');
  const prompt = first.getByTestId('approval-prompt');
  await expect(prompt.getByTestId('approval-always')).toHaveText('Always allow echo …');
  await first.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('shell-always-allow.png') });
  await prompt.getByTestId('approval-always').click();
  await expect(first).toHaveAttribute('data-state', 'done');
  await expect(first.getByTestId('shell-exit-code')).toHaveText('exit 0');
  await chat.waitForAnswer(1);

  const second = await command(chat, 'echo second | echo third');
  await expect(second).toHaveAttribute('data-state', 'done');
  await expect(second.getByTestId('approval-prompt')).toHaveCount(0);
  await chat.waitForAnswer(1);

  const chained = await command(chat, 'echo x; ls');
  await expect(chained).toHaveAttribute('data-state', 'waiting');
  await chained.getByTestId('approval-deny').click();
  await expect(chained).toHaveAttribute('data-state', 'denied');
});

test('/settings lists the grant; revoked there, the command asks again', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto(`${server.origin}/settings`);
  const grant = page.locator('[data-testid="standing-grant"][data-prefix="echo"]');
  await expect(grant).toBeVisible();
  await page.screenshot({ path: screenshotPath('settings-standing-grants.png') });
  await grant.getByTestId('standing-grant-revoke').click();
  await expect(grant).toHaveCount(0);
  await expect(page.getByTestId('no-standing-grants')).toBeVisible();

  const chat = new ChatPage(page);
  const again = await command(chat, 'echo again');
  await expect(again).toHaveAttribute('data-state', 'waiting');
  await again.getByTestId('approval-deny').click();
  await expect(again).toHaveAttribute('data-state', 'denied');
});
