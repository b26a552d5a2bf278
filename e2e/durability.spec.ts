/**
 * Nothing lost, against the real server (`next start` on a free port with its own database and home, the offline
 * model slowed so an answer takes several seconds): a `kill -9` mid-answer keeps what was streamed, a reload or a
 * second tab follows the answer to its end, SIGTERM gives running answers a bounded grace and stores the rest as
 * interrupted (closed tabs included) while refusing new turns, and bad ids or a DELETE mid-answer get JSON, not 500.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { ChatPage } from './chat-page';
import { freePort, type OwnServer, startOwnServer } from './own-server';

test.describe.configure({ mode: 'serial' });

const appDir = path.resolve(import.meta.dirname, '..');
const GRACE_MS = 1500;
const QUESTION = 'Tell me about durable storage and write a long answer.';

let tmp: string;
let port: number;
let server: OwnServer;

function start(): Promise<OwnServer> {
  return startOwnServer(port, {
    SKILLCHAT_DB: path.join(tmp, 'durability.db'),
    SKILLCHAT_HOME: path.join(tmp, 'home'),
    SKILLCHAT_SKILL_ROOTS: path.join(appDir, '.skills'),
    SKILLCHAT_WATCH: '0',
    SKILLCHAT_OFFLINE_CHUNK_DELAY_MS: '150',
    SKILLCHAT_SHUTDOWN_GRACE_MS: String(GRACE_MS),
  });
}

const origin = () => `http://127.0.0.1:${port}`;
const headers = () => ({ origin: origin(), 'content-type': 'application/json' });

async function newChat(id: string) {
  const response = await fetch(`${origin()}/api/chats`, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({ id }),
  });
  expect(response.status).toBeLessThan(300);
}

function ask(chatId: string, messageId: string, signal?: AbortSignal) {
  return fetch(`${origin()}/api/chat`, {
    method: 'POST',
    headers: headers(),
    signal,
    body: JSON.stringify({
      chatId,
      trigger: 'submit-message',
      message: { id: messageId, role: 'user', parts: [{ type: 'text', text: QUESTION }] },
    }),
  });
}

/** Reads the answer's SSE until `ms` have passed; returns the text deltas seen. */
async function readFor(response: Response, ms: number): Promise<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const until = Date.now() + ms;
  let sse = '';
  while (Date.now() < until) {
    const next = await Promise.race([
      reader.read(),
      new Promise<null>((r) => setTimeout(() => r(null), until - Date.now())),
    ]);
    if (next === null || next.done) break;
    sse += next.value;
  }
  void reader.cancel().catch(() => {});
  return sse
    .split('\n')
    .slice(0, -1) // the last piece may be a line cut short
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; delta?: string })
    .flatMap((chunk) => (chunk.type === 'text-delta' ? [chunk.delta ?? ''] : []))
    .join('');
}

type Stored = {
  id: string;
  role: string;
  parts: Array<{ type: string; text?: string }>;
  metadata?: { status?: string };
};
async function storedAnswer(chatId: string): Promise<Stored> {
  const response = await fetch(`${origin()}/api/chats/${chatId}`);
  expect(response.status).toBe(200);
  const view = (await response.json()) as { messages: Stored[] };
  return view.messages.at(-1)!;
}
const textOf = (m: Stored) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text ?? ''] : [])).join('');

test.beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-durability-'));
  fs.mkdirSync(path.join(tmp, 'home'));
  port = await freePort();
  server = await start();
});

test.afterAll(async () => {
  await server?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('kill -9 mid-answer: after restart the answer shows what was streamed, marked interrupted', async ({ page }) => {
  await newChat('killed');
  const seen = await readFor(await ask('killed', 'killed-q'), 3500);
  expect(seen.length).toBeGreaterThan(0);
  expect(await server.kill('SIGKILL')).toMatchObject({ signal: 'SIGKILL' });
  server = await start();

  const answer = await storedAnswer('killed');
  expect(answer.role).toBe('assistant');
  expect(answer.metadata?.status).toBe('interrupted');
  const stored = textOf(answer);
  expect(stored.length).toBeGreaterThan(0);
  // At most about a second of text is lost: what the browser saw and what was stored share their start.
  const shorter = Math.min(stored.length, seen.length);
  expect(stored.slice(0, shorter)).toBe(seen.slice(0, shorter));

  const chat = new ChatPage(page);
  await page.goto(`${origin()}/chat/killed`);
  await expect(chat.lastAnswer().getByTestId('message-status')).toHaveAttribute('data-status', 'interrupted');
  await expect(chat.lastAnswer()).toContainText(stored.slice(0, 20));
  await expect(chat.regenerateButton).toBeVisible();
  await expect(page.getByTestId('continue-button')).toBeVisible();
});

test('reload and a second tab during an answer show it and follow it to its end', async ({ page, context }) => {
  const chat = new ChatPage(page);
  await page.goto(`${origin()}/`);
  await chat.send(QUESTION);
  const chatId = (await chat.chatId()).toString();
  await expect(chat.lastAnswer().getByTestId('assistant-text').first()).not.toBeEmpty();
  await page.reload();
  // The answer so far is there at once, and it goes on streaming: Stop is offered, not a bare Regenerate.
  await expect(chat.userMessages).toHaveCount(1);
  await expect(chat.stopButton).toBeVisible();
  await expect(chat.lastAnswer().getByTestId('assistant-text').first()).not.toBeEmpty();

  const second = new ChatPage(await context.newPage());
  await second.page.goto(`${origin()}/chat/${chatId}`);
  await expect(second.stopButton).toBeVisible();

  await chat.waitForAnswer(1);
  await second.waitForAnswer(1);
  const final = await storedAnswer(chatId);
  expect(final.metadata?.status).toBeUndefined(); // complete
  // Shown whole and once (the replay replaced the partial answer, it did not add to it); markdown is rendered.
  const stored = textOf(final).trim();
  const [head, tail] = [stored.slice(0, 30), stored.slice(-18)];
  for (const tab of [chat, second]) {
    const shown = await tab.answerText();
    expect(shown.split(head)).toHaveLength(2);
    expect(shown.endsWith(tail)).toBe(true);
  }
});

test('a message id of another chat is a 409 JSON; DELETE mid-answer stops the turn first and answers 204', async () => {
  await newChat('ids-a');
  await newChat('ids-b');
  await readFor(await ask('ids-a', 'shared-id'), 500);
  const reused = await ask('ids-b', 'shared-id');
  expect(reused.status).toBe(409);
  expect(await reused.json()).toMatchObject({ code: 'conflict:message', error: expect.any(String) });

  const deleted = await fetch(`${origin()}/api/chats/ids-a`, { method: 'DELETE', headers: { origin: origin() } });
  expect(deleted.status).toBe(204);
  expect((await fetch(`${origin()}/api/chats/ids-a`)).status).toBe(404);
});

test('SIGTERM: new turns get 503, running answers get the grace, then are stored as interrupted', async () => {
  await newChat('open-tab');
  await newChat('closed-tab');
  await newChat('too-late');
  const open = await ask('open-tab', 'open-q');
  const closing = new AbortController();
  await readFor(await ask('closed-tab', 'closed-q', closing.signal), 1500);
  closing.abort(); // the tab goes away; the answer goes on on the server
  const reading = readFor(open, 30_000);

  const started = Date.now();
  const exited = server.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 200));
  const refused = await ask('too-late', 'late-q');
  expect(refused.status).toBe(503);
  expect(await refused.json()).toMatchObject({ code: 'unavailable:shutting-down' });
  await exited;
  const took = Date.now() - started;
  expect(took).toBeGreaterThanOrEqual(GRACE_MS - 100);
  expect(took).toBeLessThan(GRACE_MS + 5000);
  await reading;
  expect(server.output()).toMatch(/SIGTERM: 0 answers finished, 2 stored as interrupted/);

  server = await start();
  for (const id of ['open-tab', 'closed-tab']) {
    const answer = await storedAnswer(id);
    expect(answer.metadata?.status, id).toBe('interrupted');
    expect(textOf(answer).length, id).toBeGreaterThan(0);
  }
  // Nothing was stored for the refused turn.
  expect((await storedAnswer('too-late').catch(() => null))?.role ?? 'none').not.toBe('assistant');
});
