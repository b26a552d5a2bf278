/**
 * The approval card for a declared host, as a person meets it: a skill under `ask` declares the test's loopback
 * upstream (`127.0.0.1:<port>`, no name: none resolves to loopback here without a hosts entry) and the operator has
 * not granted it. Its script waits on a card naming the skill, host and port before it runs; Allow runs it and the
 * card shows what it reached; Deny runs nothing and nothing is reached. Runs its own `next start` over a copy of
 * `e2e/fixtures/network-approval/skills` with the port written in, and a config that grants some other skill a host
 * (a server that grants nothing keeps every run sealed) and lists 127.0.0.1 in `network.private`.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { ChatPage } from './chat-page';
import { freePort, type OwnServer, startOwnServer } from './own-server';
import { screenshotPath } from './screenshot-path';

test.describe.configure({ mode: 'serial' });

const SKILL = 'loopback-api';
const fixtures = path.join(import.meta.dirname, 'fixtures', 'network-approval', 'skills');
let server: OwnServer;
let upstream: http.Server;
let port: number;
/** What the upstream was asked, in order. */
const reached: string[] = [];
let tmp: string;

test.beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    reached.push(req.url ?? '');
    res.end('LOOPBACK_UPSTREAM_OK\n');
  });
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
  port = (upstream.address() as AddressInfo).port;

  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-network-approval-'));
  const roots = path.join(tmp, 'skills');
  fs.cpSync(fixtures, roots, { recursive: true });
  const skillFile = path.join(roots, SKILL, 'SKILL.md');
  fs.writeFileSync(skillFile, fs.readFileSync(skillFile, 'utf8').replace('UPSTREAM_PORT', String(port)));
  const config = path.join(tmp, 'skillchat.config.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      permissions: { rules: { [SKILL]: 'ask' } },
      network: { skills: { 'granted-elsewhere': ['other.test'] }, private: ['127.0.0.1/32'] },
    }),
  );
  fs.mkdirSync(path.join(tmp, 'home'));
  const serverPort = await freePort();
  server = await startOwnServer(serverPort, {
    SKILLCHAT_DB: path.join(tmp, 'test.db'),
    SKILLCHAT_HOME: path.join(tmp, 'home'),
    SKILLCHAT_CONFIG: config,
    SKILLCHAT_SKILL_ROOTS: roots,
    SKILLCHAT_WATCH: '0',
    SKILLCHAT_MODEL: 'offline:builtin',
    SKILLCHAT_OFFLINE_CHUNK_DELAY_MS: '0',
  });
});

test.afterAll(async () => {
  await server?.stop();
  upstream?.closeAllConnections();
  await new Promise((done) => upstream?.close(done));
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** `/loopback-api run scripts/fetch.sh <url>`: the offline model activates the skill (the person named it) and runs it. */
async function askForThePage(chat: ChatPage) {
  await chat.page.goto(server.origin);
  await expect(chat.page.getByTestId('empty-chat')).toBeVisible();
  await chat.ready();
  await chat.send(`/${SKILL} run scripts/fetch.sh http://127.0.0.1:${port}/page`);
  const card = chat.toolCards('skills.runScript', chat.lastAnswer());
  await expect(card).toHaveAttribute('data-state', 'waiting');
  const prompt = card.getByTestId('approval-prompt');
  await expect(prompt).toBeVisible();
  return { card, prompt };
}

test('the card names the skill, host and port; Allow runs the script, which reaches the upstream', async ({ page }) => {
  reached.length = 0;
  const chat = new ChatPage(page);
  const { card, prompt } = await askForThePage(chat);
  await expect(prompt.locator('legend')).toHaveText('Let this script reach the network?');
  await expect(prompt.getByTestId('approval-reason')).toHaveText(
    `"${SKILL}" declares network access the operator has not granted: 127.0.0.1:${port}. Its script may reach them if you allow it.`,
  );
  await expect(prompt.getByTestId('script-command')).toHaveText(`$ scripts/fetch.sh http://127.0.0.1:${port}/page`);
  await expect(prompt.getByTestId('approval-always')).toBeVisible();
  // Nothing runs while the card waits.
  expect(reached).toEqual([]);
  await card.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('network-approval.png') });

  await prompt.getByTestId('approval-allow').click();
  await expect(card).toHaveAttribute('data-state', 'done');
  await expect(card.getByTestId('script-exit-code')).toHaveText('exit 0');
  const content = await chat.expandCard(card);
  expect(await content.getByTestId('script-stdout').textContent()).toBe('LOOPBACK_UPSTREAM_OK\n');
  const line = content.getByTestId('egress-line');
  await expect(line).toHaveCount(1);
  await expect(line).toHaveAttribute('data-allowed', 'yes');
  await expect(line).toHaveText(new RegExp(`^127\\.0\\.0\\.1:${port} · 1 request · \\d+ B$`));
  expect(reached).toEqual(['/page']);
  await chat.waitForAnswer(1);
  await card.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('network-approval-done.png') });
});

test('Deny: the script does not run and the upstream is never reached', async ({ page }) => {
  reached.length = 0;
  const chat = new ChatPage(page);
  const { card, prompt } = await askForThePage(chat);
  await prompt.getByTestId('approval-deny').click();
  await expect(card).toHaveAttribute('data-state', 'denied');
  await expect(card.getByTestId('tool-denied')).toHaveText('You denied this, so it did not run.');
  await chat.waitForAnswer(1);
  expect(reached).toEqual([]);
});
