/**
 * A real model's chat, as a person sees it, against a local fake of Ollama (its own `next start`, on a free port):
 * after the first exchange the sidebar shows the title the model wrote; a chat that outgrows the model's small
 * context window gets its earlier messages summarised by the model, shown as a divider whose summary can be read.
 * The fake answers the streamed chat from a recorded fixture and the two side calls (title, summary) as plain JSON.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { TITLE_INSTRUCTIONS } from '../server/chat/generated-title';
import { SUMMARY_INSTRUCTIONS } from '../server/chat/summary';
import { type ReceivedRequest, type ReplayServer, startReplayServer } from '../test/model/replay-server';
import { ChatPage } from './chat-page';
import { freePort, type OwnServer, startOwnServer } from './own-server';
import { screenshotPath } from './screenshot-path';

test.describe.configure({ mode: 'serial' });

const appDir = path.resolve(import.meta.dirname, '..');
const LABEL = 'tiny:1b (Ollama)';
const MODEL_TITLE = 'Filler notes for the archive';
const SUMMARY = 'The user shared two long filler notes for the archive and asked to keep them.';
/** Small enough that three long notes overflow it. */
const CONTEXT_WINDOW = 4096;

let ollama: ReplayServer;
let server: OwnServer;
let tmp: string;

type Wire = { stream?: boolean; messages: { role: string; content: unknown }[] };
const systemOf = (r: ReceivedRequest) => (r.body as Wire).messages.find((m) => m.role === 'system')?.content;
const sideCalls = (instructions: string) =>
  ollama.received.filter(
    (r) => r.url === '/v1/chat/completions' && !(r.body as Wire).stream && systemOf(r) === instructions,
  );

test.beforeAll(async () => {
  const text = fs.readFileSync(path.join(appDir, 'server/model/fixtures/ollama-chat-text.sse.txt'), 'utf8');
  const completion = (content: string) => ({
    json: {
      id: 'chatcmpl-side',
      object: 'chat.completion',
      created: 1763712000,
      model: 'tiny:1b',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    },
  });
  ollama = await startReplayServer((request) => {
    if (request.url === '/api/tags') return { json: { models: [{ name: 'tiny:1b', model: 'tiny:1b' }] } };
    if (request.url === '/api/show') {
      return { json: { model_info: { 'general.architecture': 'llama', 'llama.context_length': CONTEXT_WINDOW } } };
    }
    const body = request.body as Wire;
    if (body.stream) return { sse: text };
    return completion(systemOf(request) === SUMMARY_INSTRUCTIONS ? SUMMARY : `"${MODEL_TITLE}"`);
  });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-long-chat-'));
  fs.mkdirSync(path.join(tmp, 'home'));
  server = await startOwnServer(await freePort(), {
    SKILLCHAT_DB: path.join(tmp, 'test.db'),
    SKILLCHAT_HOME: path.join(tmp, 'home'),
    SKILLCHAT_SKILL_ROOTS: path.join(appDir, '.skills'),
    SKILLCHAT_WATCH: '0',
    SKILLCHAT_MODEL: 'offline:builtin',
    SKILLCHAT_OLLAMA_URL: ollama.origin,
  });
});

test.afterAll(async () => {
  await server?.stop();
  await ollama?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('a real model names the chat after the first answer, and summarises it when it grows too long', async ({
  page,
}) => {
  const chat = new ChatPage(page);
  // The model list waits for discovery; the page shows what is known without waiting.
  const listed = await (await page.request.get(`${server.origin}/api/models`)).json();
  expect(listed.models.map((m: { label: string }) => m.label)).toContain(LABEL);
  await page.goto(`${server.origin}/`);
  await expect(chat.input).toBeVisible();
  await chat.modelPicker.selectOption({ label: LABEL });

  await chat.send('Please keep these notes for the archive: the first one is short.');
  await chat.waitForAnswer(1);
  const id = await chat.chatId();
  // The first line showed at once; the model's title replaces it when the answer ends, in the sidebar and header.
  await expect(chat.chatItem(id)).toContainText(MODEL_TITLE);
  await expect(chat.title).toHaveText(MODEL_TITLE);
  expect(sideCalls(TITLE_INSTRUCTIONS)).toHaveLength(1);
  await expect(chat.page.getByTestId('compaction-divider')).toHaveCount(0);

  const note = (n: number) => `Note ${n}: ${Array.from({ length: 180 }, (_, i) => `filler${n}x${i}`).join(' ')}`;
  for (let n = 1; n <= 3; n++) {
    await chat.send(note(n));
    await chat.waitForAnswer(n + 1);
  }
  await chat.send('What did I ask you to keep?');
  await chat.waitForAnswer(5);

  // The model was asked once for a summary; the chat says so, and the summary can be read under the divider.
  expect(sideCalls(SUMMARY_INSTRUCTIONS).length).toBeGreaterThanOrEqual(1);
  const dividers = page.getByTestId('compaction-divider');
  await expect(dividers.first()).toBeVisible();
  await expect(dividers.last()).toHaveText(/Earlier messages summarised/);
  await expect(dividers.first()).toHaveAttribute('data-kind', 'summarised');
  const written = page.getByTestId('compaction-summary');
  await expect(written).toHaveCount(1);
  await written.locator('xpath=ancestor::details').locator('summary').click();
  await expect(written).toHaveText(SUMMARY);
  await written.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('long-chat-summarised.png') });

  // The title was asked for once only, and a reload keeps the title and the dividers.
  expect(sideCalls(TITLE_INSTRUCTIONS)).toHaveLength(1);
  await page.reload();
  await expect(chat.title).toHaveText(MODEL_TITLE);
  await expect(page.getByTestId('compaction-divider').last()).toHaveText(/Earlier messages summarised/);
});
