/**
 * From one person's laptop to a team server: chats made while the install was loopback-only belong to its built-in
 * local person. The first time the same install (same database) is exposed, the first admin's setup offers to take
 * them over, checked by default, with their count; afterwards they are the admin's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { freePort, type OwnServer, startOwnServer } from './own-server';

test.describe.configure({ mode: 'serial' });

const ADMIN = { email: 'lee@example.test', password: 'lee-password-1' };

let tmp: string;
let env: Record<string, string>;
let server: OwnServer | undefined;

test.beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-laptop-')));
  fs.mkdirSync(path.join(tmp, 'home'));
  env = { SKILLCHAT_DB: path.join(tmp, 'laptop.db'), SKILLCHAT_HOME: path.join(tmp, 'home') };
});

test.afterAll(async () => {
  await server?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('the first admin takes over the chats made on loopback, and sees them', async ({ page, request }) => {
  // On the laptop: no accounts; two chats.
  server = await startOwnServer(await freePort(), env);
  for (const title of ['Trip budget', 'Reading list']) {
    const made = await request.post(`${server.origin}/api/chats`, {
      headers: { origin: server.origin },
      data: { title },
    });
    expect(made.status()).toBe(201);
  }
  await server.stop();

  // The same install, now shared.
  server = await startOwnServer(await freePort(), env, { bind: '0.0.0.0' });
  const token = /setup token \(valid once\): (\S+)/.exec(server.output())?.[1];
  expect(token).toBeTruthy();
  await page.goto(`${server.origin}/setup`);
  await expect(page.getByTestId('setup-local-chats')).toHaveText('2');
  await expect(page.getByTestId('setup-take-over')).toBeChecked();
  await page.getByTestId('setup-token').fill(token!);
  await page.getByTestId('setup-email').fill(ADMIN.email);
  await page.getByTestId('setup-password').fill(ADMIN.password);
  await page.getByTestId('setup-submit').click();
  // Setting up signs the new admin in: no second password prompt.
  await expect(page.getByTestId('setup-done')).toContainText('you are signed in');
  await page.goto(`${server.origin}/`);
  await expect(page).toHaveURL(`${server.origin}/`);
  await expect(page.getByTestId('chat-item')).toHaveCount(2);
  const titles = (await (await page.request.get(`${server.origin}/api/chats`)).json()) as {
    chats: { title: string }[];
  };
  expect(titles.chats.map((c) => c.title).sort()).toEqual(['Reading list', 'Trip budget']);
});
