/**
 * Two instances on one PostgreSQL (docs/TEAM-SERVER.md, "Two instances"): a scratch cluster and two `next start`
 * processes of the same build on free ports, with the same `DATABASE_URL` and auth secret, the offline model slowed
 * so an answer takes several seconds. Real Chromium on each: an answer running on A shows on B; a send on B while A
 * answers is refused (409) and keeps its text; Stop pressed on B stops the answer on A, stored as stopped; a skill
 * activated on A shows on B.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, expect, type Page, test } from '@playwright/test';
import { createScratchDatabase, type ScratchPostgres, startScratchPostgres } from '../test/pg-scratch';
import { ChatPage } from './chat-page';
import { freePort, type OwnServer, startOwnServer } from './own-server';

test.describe.configure({ mode: 'serial' });

const appDir = path.resolve(import.meta.dirname, '..');
const QUESTION = 'Tell me about durable storage and write a long answer.';

let tmp: string;
let pg: ScratchPostgres | null = null;
let a: OwnServer | undefined;
let b: OwnServer | undefined;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  pg = await startScratchPostgres();
  test.skip(!pg, 'PostgreSQL server binaries are not installed (no /usr/lib/postgresql/*/bin)');
  const url = await createScratchDatabase(pg!.url, 'two_instances');
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-two-'));
  const env = (name: string) => {
    fs.mkdirSync(path.join(tmp, name));
    return {
      DATABASE_URL: url,
      SKILLCHAT_AUTH_SECRET: 'two-instances-share-this-secret-0123456789abcdef',
      SKILLCHAT_HOME: path.join(tmp, name),
      SKILLCHAT_DB: path.join(tmp, `${name}.db`),
      SKILLCHAT_SKILL_ROOTS: path.join(appDir, '.skills'),
      SKILLCHAT_WATCH: '0',
      SKILLCHAT_OFFLINE_CHUNK_DELAY_MS: '600',
      // Short ticks, so the fallback (a Stop without NOTIFY) is quick too.
      SKILLCHAT_TURN_HEARTBEAT_MS: '1000',
    };
  };
  // One after the other: the second start finds the migrations applied (they run under an advisory lock anyway).
  a = await startOwnServer(await freePort(), env('a'));
  b = await startOwnServer(await freePort(), env('b'));
});

test.afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  pg?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function openOn(browser: Browser, server: OwnServer, chatPath = '/'): Promise<{ page: Page; chat: ChatPage }> {
  const context = await browser.newContext({ baseURL: server.origin });
  const page = await context.newPage();
  await page.goto(chatPath);
  const chat = new ChatPage(page);
  await expect(chat.input).toBeVisible();
  return { page, chat };
}

type Stored = { role: string; parts: Array<{ type: string; text?: string }>; metadata?: { status?: string } };

async function storedAnswer(server: OwnServer, chatId: string): Promise<Stored> {
  const response = await fetch(`${server.origin}/api/chats/${chatId}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { messages: Stored[] }).messages.at(-1)!;
}
const textOf = (m: Stored) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text ?? ''] : [])).join('');

test('an answer on A shows on B; a send on B is refused and keeps its text; Stop on B stops it on A', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const onA = await openOn(browser, a!);
  await onA.chat.send(QUESTION);
  const chatId = await onA.chat.chatId();
  // A is answering: its Stop button shows and text arrives.
  await expect(onA.chat.stopButton).toBeVisible();
  await expect.poll(async () => (await onA.chat.answerText()).length, { timeout: 30_000 }).toBeGreaterThan(20);

  // B reads the same database: the question and the answer so far (stored while it streams).
  const onB = await openOn(browser, b!, `/chat/${chatId}`);
  await expect(onB.chat.userMessages.first()).toContainText(QUESTION);
  await expect(onB.chat.assistantMessages).toHaveCount(1);
  await expect.poll(async () => (await onB.chat.answerText()).length, { timeout: 10_000 }).toBeGreaterThan(0);
  const stored = await storedAnswer(b!, chatId);
  expect(stored.metadata?.status).toBeUndefined();

  // A second message on B while A answers: the lease refuses it (409); the text goes back into the box.
  await onB.chat.send('A second question from B');
  const error = onB.page.getByTestId('chat-error');
  await expect(error).toContainText(/still answering/i);
  await expect(onB.chat.input).toHaveValue('A second question from B');
  await expect(onB.chat.userMessages).toHaveCount(1);
  await expect(onA.chat.stopButton).toBeVisible();

  // Stop pressed on B: A's turn is aborted (NOTIFY) and its answer is stored as stopped.
  await onB.page.getByTestId('stop-elsewhere-button').click();
  await expect(onA.chat.stopButton).toBeHidden({ timeout: 10_000 });
  await expect.poll(async () => (await storedAnswer(a!, chatId)).metadata?.status, { timeout: 10_000 }).toBe('aborted');
  const stopped = await storedAnswer(b!, chatId);
  expect(stopped.metadata?.status).toBe('aborted');
  expect(textOf(stopped).length).toBeGreaterThan(20);

  // A reload on A shows it stopped; B can now send its message.
  await onA.page.reload();
  await expect(onA.chat.lastAnswer().getByTestId('message-status')).toHaveAttribute('data-status', 'aborted');
  await onB.chat.input.press('Enter');
  await expect(onB.chat.userMessages).toHaveCount(2);
  await expect(onB.chat.stopButton).toBeVisible();
  await onB.chat.stopButton.click();
  await expect(onB.chat.stopButton).toBeHidden({ timeout: 10_000 });
});

test('a skill activated on A shows on B', async ({ browser }) => {
  test.setTimeout(60_000);
  const onA = await openOn(browser, a!);
  // Picked from the slash menu and sent bare: the server activates it with no model call.
  await onA.chat.pickSkill('commit', 'commit-message');
  await onA.chat.input.press('Enter');
  const chatId = await onA.chat.chatId();
  await expect(onA.chat.chip('commit-message')).toBeVisible({ timeout: 15_000 });
  await expect(onA.chat.stopButton).toBeHidden({ timeout: 15_000 });

  const onB = await openOn(browser, b!, `/chat/${chatId}`);
  await expect(onB.chat.chip('commit-message')).toBeVisible();
  const activate = onB.chat.toolCards('skills.activate', onB.chat.lastAnswer());
  await expect(activate).toContainText('commit-message');
});
