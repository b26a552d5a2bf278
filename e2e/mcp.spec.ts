/**
 * An MCP server the operator configured, as a person meets it: /admin lists the stdio test server connected with its
 * tools; `mcp.test.echo {...}` in the chat calls the tool (offline model) and its card shows the arguments and the
 * server's answer; a tool under `ask` waits with its approval card and runs after Allow; /admin counts the calls.
 * Runs its own `next start` with a config naming `test/mcp/stdio-server.mjs` (a real server, official SDK).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { ChatPage } from './chat-page';
import { freePort, type OwnServer, startOwnServer } from './own-server';

test.describe.configure({ mode: 'serial' });

const appDir = path.resolve(import.meta.dirname, '..');
let server: OwnServer;
let tmp: string;

test.beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-mcp-e2e-'));
  const config = path.join(tmp, 'skillchat.config.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { test: { command: process.execPath, args: [path.join(appDir, 'test/mcp/stdio-server.mjs')] } },
      mcp: { rules: { 'test/add': 'ask' } },
    }),
  );
  fs.mkdirSync(path.join(tmp, 'home'));
  const port = await freePort();
  server = await startOwnServer(port, {
    SKILLCHAT_DB: path.join(tmp, 'test.db'),
    SKILLCHAT_HOME: path.join(tmp, 'home'),
    SKILLCHAT_SKILL_ROOTS: path.join(appDir, '.skills'),
    SKILLCHAT_CONFIG: config,
    SKILLCHAT_OFFLINE_CHUNK_DELAY_MS: '0',
  });
});

test.afterAll(async () => {
  await server?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('an MCP tool from the chat: /admin shows the server connected, the card shows the output, ask waits for Allow', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const admin = async () => {
    const url = `${server.origin}/admin#mcp`;
    // A full load each time: a `goto` to the URL the page is on, hash and all, loads nothing, and the card would go
    // on showing the status it was rendered with (CI once watched "connecting" for 90 s that way).
    if (page.url() === url) await page.reload();
    else await page.goto(url);
    return page.getByTestId('mcp-server-test');
  };
  // Connected in the background from the start: the page may come first, so look again until it is. A fresh clone's
  // first start of the stdio server (cold imports, a loaded CI machine) has taken over 30 s: give it room.
  await expect(async () => {
    const card = await admin();
    await expect(card).toHaveAttribute('data-status', 'connected', { timeout: 1000 });
  }).toPass({ timeout: 90_000 });
  const serverCard = page.getByTestId('mcp-server-test');
  await expect(serverCard.getByTestId('mcp-target')).toContainText('stdio-server.mjs');
  await expect(serverCard.getByTestId('mcp-tool-mcp.test.echo').getByTestId('mcp-tool-permission')).toHaveText('allow');
  await expect(serverCard.getByTestId('mcp-tool-mcp.test.add').getByTestId('mcp-tool-permission')).toHaveText('ask');

  const chat = new ChatPage(page);
  await page.goto(server.origin);
  await expect(page.getByTestId('empty-chat')).toBeVisible();
  await chat.ready();
  await chat.send('mcp.test.echo {"text": "hello from the browser"}');
  await chat.waitForAnswer(1);
  const card = chat.toolCards('mcp.test.echo', chat.lastAnswer());
  await expect(card).toHaveAttribute('data-state', 'done');
  const content = await chat.expandCard(card);
  await expect(content.getByTestId('mcp-arguments')).toContainText('"text": "hello from the browser"');
  await expect(content.getByTestId('mcp-output')).toHaveText('echo: hello from the browser');
  expect(await chat.answerText()).toContain('echo: hello from the browser');

  // Under `ask` the card waits with the arguments; Allow runs the call and the same answer goes on.
  await chat.send('mcp.test.add {"a": 19, "b": 23}');
  const add = chat.toolCards('mcp.test.add', chat.lastAnswer());
  await expect(add).toHaveAttribute('data-state', 'waiting');
  await expect(add.getByTestId('approval-reason')).toContainText('rule "test/add"');
  await expect(add.getByTestId('mcp-arguments')).toContainText('"a": 19');
  await chat.waitForAnswer(2);
  await add.getByTestId('approval-allow').click();
  await expect(add).toHaveAttribute('data-state', 'done');
  await chat.waitForAnswer(2);
  await expect((await chat.expandCard(add)).getByTestId('mcp-output')).toHaveText('42');

  const after = await admin();
  await expect(after.getByTestId('mcp-tool-mcp.test.echo').getByTestId('mcp-tool-calls')).toHaveText('1');
  await expect(after.getByTestId('mcp-tool-mcp.test.add').getByTestId('mcp-tool-calls')).toHaveText('1');
});
