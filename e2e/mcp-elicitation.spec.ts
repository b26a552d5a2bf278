/**
 * An MCP server that asks the person during a tool call, as a person meets it: `mcp.trips.book {...}` in the chat
 * (offline model) shows a form card with the defaults filled in; the person answers it, and the tool's result
 * follows in the same answer. A second one is declined after a reload (the waiting form survives it), and the server
 * is told. Runs its own `next start` with a config naming test/mcp/elicit-server.ts, started by this test on a
 * loopback port (a real server, official SDK).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startElicitServer } from '../test/mcp/elicit-server';
import type { TestHttpServer } from '../test/mcp/servers';
import { ChatPage } from './chat-page';
import { freePort, type OwnServer, startOwnServer } from './own-server';

test.describe.configure({ mode: 'serial' });

const appDir = path.resolve(import.meta.dirname, '..');
let server: OwnServer;
let trips: TestHttpServer;
let tmp: string;

test.beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-elicit-e2e-'));
  trips = await startElicitServer();
  const config = path.join(tmp, 'skillchat.config.json');
  fs.writeFileSync(config, JSON.stringify({ mcpServers: { trips: { url: trips.url } } }));
  fs.mkdirSync(path.join(tmp, 'home'));
  server = await startOwnServer(await freePort(), {
    SKILLCHAT_DB: path.join(tmp, 'test.db'),
    SKILLCHAT_HOME: path.join(tmp, 'home'),
    SKILLCHAT_SKILL_ROOTS: path.join(appDir, '.skills'),
    SKILLCHAT_CONFIG: config,
    SKILLCHAT_OFFLINE_CHUNK_DELAY_MS: '0',
  });
});

test.afterAll(async () => {
  await server?.stop();
  await trips?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('a server asks during a tool call: the form is answered, then one is declined after a reload', async ({
  page,
}, testInfo) => {
  test.setTimeout(180_000);
  await expect(async () => {
    await page.goto(`${server.origin}/admin#mcp`);
    await expect(page.getByTestId('mcp-server-trips')).toHaveAttribute('data-status', 'connected', { timeout: 1000 });
  }).toPass({ timeout: 60_000 });

  const chat = new ChatPage(page);
  await page.goto(server.origin);
  await chat.ready();
  await chat.send('mcp.trips.book {"city": "Lisbon"}');
  const form = page.getByTestId('elicitation-card');
  await expect(form).toHaveAttribute('data-status', 'waiting');
  await expect(form.getByTestId('elicitation-message')).toHaveText('Details for your trip to Lisbon');
  // The defaults are filled in: 2 seats, economy.
  await expect(form.getByTestId('elicitation-field-seats').locator('input')).toHaveValue('2');
  await expect(form.getByTestId('elicitation-field-class').locator('select')).toHaveValue('economy');
  await form.getByTestId('elicitation-field-date').locator('input').fill('2027-01-02');
  await form.getByTestId('elicitation-field-class').locator('select').selectOption({ label: 'Business' });
  await form.screenshot({ path: testInfo.outputPath('elicitation-form.png') });
  await form.getByTestId('elicitation-accept').click();
  await expect(form).toHaveAttribute('data-status', 'accept');
  await chat.waitForAnswer(1);
  const card = chat.toolCards('mcp.trips.book', chat.lastAnswer());
  await expect(card).toHaveAttribute('data-state', 'done');
  await expect((await chat.expandCard(card)).getByTestId('mcp-output')).toHaveText(
    'booked Lisbon on 2027-01-02, 2 seats, business',
  );

  // A second question, still waiting across a reload; declined, and the server hears it.
  await chat.send('mcp.trips.book {"city": "Porto"}');
  const second = page.getByTestId('elicitation-card').nth(1);
  await expect(second).toHaveAttribute('data-status', 'waiting');
  await page.reload();
  const again = page.getByTestId('elicitation-card').nth(1);
  await expect(again).toHaveAttribute('data-status', 'waiting');
  await expect(again.getByTestId('elicitation-message')).toHaveText('Details for your trip to Porto');
  await again.getByTestId('elicitation-decline').click();
  await expect(again).toHaveAttribute('data-status', 'decline');
  await chat.waitForAnswer(2);
  const declined = chat.toolCards('mcp.trips.book', chat.lastAnswer());
  await expect((await chat.expandCard(declined)).getByTestId('mcp-output')).toHaveText('the person chose decline');
});
