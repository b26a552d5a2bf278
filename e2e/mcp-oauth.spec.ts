/**
 * An MCP server that signs each person in (OAuth), as people meet it on a team server: a member connects it on
 * /settings (the browser goes to the authorization server and back), calls its tool in a chat as themselves and
 * disconnects; a second member who has not connected gets "connect to use" with a Connect button in the chat, and
 * connects from there; when a tool needs more scope than they granted, the card asks them to connect again to grant
 * it; an admin sees who connected on /admin and revokes, and the tokens are revoked at the authorization server too.
 * The authorization server and MCP server are the loopback ones of test/mcp/oauth-servers.ts (the SDK's), running in
 * this test process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { type OAuthMcpServer, startOAuthMcpServer } from '../test/mcp/oauth-servers';
import { ChatPage } from './chat-page';
import { freePort, type OwnServer, startOwnServer } from './own-server';
import { screenshotPath } from './screenshot-path';

test.describe.configure({ mode: 'serial' });

const ADMIN = { email: 'ada@example.test', password: 'ada-password-1', name: 'Ada' };
const MAX = { email: 'max@example.test', password: 'max-password-1' };
const MIA = { email: 'mia@example.test', password: 'mia-password-1' };

let server: OwnServer;
let oauth: OAuthMcpServer;
let tmp: string;

test.beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-mcp-oauth-')));
  fs.mkdirSync(path.join(tmp, 'home'));
  oauth = await startOAuthMcpServer({ stepUpScope: 'mcp:write', revocation: 'ok' });
  const config = path.join(tmp, 'skillchat.config.json');
  fs.writeFileSync(config, JSON.stringify({ mcpServers: { notes: { url: oauth.url, auth: { kind: 'oauth' } } } }));
  server = await startOwnServer(
    await freePort(),
    {
      SKILLCHAT_DB: path.join(tmp, 'oauth.db'),
      SKILLCHAT_HOME: path.join(tmp, 'home'),
      SKILLCHAT_CONFIG: config,
      SKILLCHAT_OFFLINE_CHUNK_DELAY_MS: '0',
    },
    { bind: '0.0.0.0' },
  );
});

test.afterAll(async () => {
  await server?.stop();
  await oauth?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function signIn(page: Page, who: { email: string; password: string }) {
  await page.goto(`${server.origin}/login`);
  await page.getByTestId('login-email').fill(who.email);
  await page.getByTestId('login-password').fill(who.password);
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(`${server.origin}/`);
}

function noToken(text: string) {
  for (const token of oauth.issued) expect(text).not.toContain(token);
}

test('the admin sets up two members', async ({ page }) => {
  const setup = /setup token \(valid once\): (\S+)/.exec(server.output());
  expect(setup).not.toBeNull();
  const created = await page.request.post(`${server.origin}/api/setup`, {
    headers: { origin: server.origin },
    data: { token: setup![1], ...ADMIN },
  });
  expect(created.status()).toBe(201);
  await signIn(page, ADMIN);
  for (const member of [MAX, MIA]) {
    const made = await page.request.post(`${server.origin}/api/admin/users`, {
      headers: { origin: server.origin },
      data: { ...member, role: 'member' },
    });
    expect(made.status()).toBe(201);
  }
});

test('a member connects on /settings, calls the tool as themselves, and disconnects', async ({ browser }) => {
  const page = await (await browser.newContext()).newPage();
  await signIn(page, MAX);
  await page.goto(`${server.origin}/settings`);
  const row = page.locator('[data-testid="mcp-connection"][data-server="notes"]');
  await expect(row).toHaveAttribute('data-connected', 'false');
  await expect(row.getByTestId('mcp-connection-status')).toHaveText('not connected');
  oauth.approveAs = MAX.email;
  await row.getByTestId('mcp-connect-notes').click();
  await expect(page).toHaveURL(`${server.origin}/settings?mcp_connected=notes`);
  await expect(row).toHaveAttribute('data-connected', 'true');
  await expect(row).toContainText('Scopes: mcp:tools');
  expect(oauth.grants).toEqual(['authorization_code']);
  await page.getByTestId('mcp-connections').screenshot({ path: screenshotPath('settings-mcp-connections.png') });
  noToken(await page.content());

  const chat = new ChatPage(page);
  await page.goto(server.origin);
  await chat.ready();
  await chat.send('mcp.notes.whoami {}');
  await chat.waitForAnswer(1);
  const card = chat.toolCards('mcp.notes.whoami', chat.lastAnswer());
  await expect(card).toHaveAttribute('data-state', 'done');
  const content = await chat.expandCard(card);
  await expect(content.getByTestId('mcp-output')).toHaveText(`signed in as ${MAX.email}`);
  noToken(await page.content());
  const exported = await page.request.get(`${server.origin}/api/chats/${await chat.chatId()}/export?format=json`);
  noToken(await exported.text());

  await page.goto(`${server.origin}/settings`);
  await row.getByTestId('mcp-disconnect-notes').click();
  await expect(row).toHaveAttribute('data-connected', 'false');
  // Revoked at the authorization server too (RFC 7009), refresh token first.
  expect(oauth.revocations.map((r) => [r.hint, r.known])).toEqual([
    ['refresh_token', true],
    ['access_token', true],
  ]);
  await page.context().close();
});

test('a member who has not connected sees "connect to use" in the chat and connects from its card', async ({
  browser,
}) => {
  const page = await (await browser.newContext()).newPage();
  await signIn(page, MIA);
  const chat = new ChatPage(page);
  await chat.ready();
  await chat.send('mcp.notes.whoami {}');
  await chat.waitForAnswer(1);
  const card = chat.toolCards('mcp.notes.whoami', chat.lastAnswer());
  await expect(card).toHaveAttribute('data-state', 'done');
  const content = await chat.expandCard(card);
  const connect = content.getByTestId('mcp-connect-card');
  await expect(connect).toContainText('notes signs in each person');
  await card.screenshot({ path: screenshotPath('chat-mcp-connect-card.png') });
  expect(await chat.answerText()).toMatch(/has not connected it yet/);

  const chatUrl = page.url();
  oauth.approveAs = MIA.email;
  await connect.getByTestId('mcp-connect-notes').click();
  await expect(page).toHaveURL(`${chatUrl}?mcp_connected=notes`);
  await chat.send('mcp.notes.whoami {}');
  await chat.waitForAnswer(2);
  const second = await chat.expandCard(chat.toolCards('mcp.notes.whoami', chat.lastAnswer()));
  await expect(second.getByTestId('mcp-output')).toHaveText(`signed in as ${MIA.email}`);
  await page.context().close();
});

test('a tool that needs more scope asks the member to connect again to grant it, and that connect asks for it', async ({
  browser,
}) => {
  const page = await (await browser.newContext()).newPage();
  await signIn(page, MIA);
  const chat = new ChatPage(page);
  await chat.ready();
  await chat.send('mcp.notes.publish {}');
  await chat.waitForAnswer(1);
  const card = chat.toolCards('mcp.notes.publish', chat.lastAnswer());
  await expect(card).toHaveAttribute('data-state', 'done');
  const content = await chat.expandCard(card);
  const connect = content.getByTestId('mcp-connect-card');
  await expect(connect).toContainText('connect again to grant mcp:write');
  await card.screenshot({ path: screenshotPath('chat-mcp-step-up-card.png') });

  const chatUrl = page.url();
  await connect.getByTestId('mcp-connect-notes').click();
  await expect(page).toHaveURL(`${chatUrl}?mcp_connected=notes`);
  expect(oauth.scopesAsked.at(-1)?.split(' ')).toEqual(expect.arrayContaining(['mcp:tools', 'mcp:write']));
  await chat.send('mcp.notes.publish {}');
  await chat.waitForAnswer(2);
  const second = await chat.expandCard(chat.toolCards('mcp.notes.publish', chat.lastAnswer()));
  await expect(second.getByTestId('mcp-output')).toHaveText(`${MIA.email} published`);
  await page.context().close();
});

test("an admin sees who connected on /admin and revokes a person's connection", async ({ browser }) => {
  const page = await (await browser.newContext()).newPage();
  await signIn(page, ADMIN);
  await page.goto(`${server.origin}/admin#mcp`);
  const card = page.getByTestId('mcp-server-notes');
  await expect(card).toHaveAttribute('data-status', 'per-person');
  await expect(card.getByTestId('mcp-reason')).toContainText('each person connects it themselves');
  const row = card.locator(`[data-testid="mcp-connection-row"][data-person="${MIA.email}"]`);
  await expect(row).toBeVisible();
  await expect(card.getByTestId('mcp-connection-row')).toHaveCount(1);
  await card.screenshot({ path: screenshotPath('admin-mcp-connections.png') });
  noToken(await page.content());
  const revokedBefore = oauth.revocations.length;
  await row.getByTestId('mcp-disconnect-notes').click();
  await expect(card.getByTestId('mcp-connection-row')).toHaveCount(0);
  expect(oauth.revocations.slice(revokedBefore).map((r) => r.hint)).toEqual(['refresh_token', 'access_token']);
  await expect(card.getByTestId('mcp-no-connections')).toBeVisible();
  await page.context().close();

  const mia = await (await browser.newContext()).newPage();
  await signIn(mia, MIA);
  await mia.goto(`${server.origin}/settings`);
  await expect(mia.locator('[data-testid="mcp-connection"][data-server="notes"]')).toHaveAttribute(
    'data-connected',
    'false',
  );
  await mia.context().close();
});
