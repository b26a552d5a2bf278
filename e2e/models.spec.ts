/**
 * The model picker, as a person uses it: a local OpenAI-compatible server (started here on 127.0.0.1, serving
 * `/v1/models` and replaying a recorded Chat Completions stream with a tool call) shows up in the picker beside the
 * offline model; picking it and sending gets its answer, labelled under the answer; a reload keeps the pick and the
 * label; switching back to the offline model in the same chat labels the next answer so. Runs its own `next start`
 * with `SKILLCHAT_OPENAI_COMPATIBLE_URL` pointing at the fake server (and the Ollama probe off, so a real Ollama on
 * this machine cannot change the list).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { type ReplayServer, startReplayServer } from '../server/model/replay-server';
import { ChatPage } from './chat-page';
import { type OwnServer, startOwnServer } from './own-server';
import { screenshotPath } from './screenshot-path';

test.describe.configure({ mode: 'serial' });

const appDir = path.resolve(import.meta.dirname, '..');
const PORT = Number(process.env.E2E_MODELS_PORT ?? 3213);
const ORIGIN = `http://127.0.0.1:${PORT}`;
const fixture = (name: string) => fs.readFileSync(path.join(appDir, 'server/model/fixtures', name), 'utf8');
const TOOL_CALL_SSE = fixture('chat-completions-tool-call.sse.txt');
const TEXT_SSE = fixture('chat-completions-text.sse.txt');
const REPLAYED_ANSWER = "I activated **csv-to-json**. Paste your CSV and I'll convert it to JSON.";

test.use({ baseURL: ORIGIN });

let fake: ReplayServer;
let server: OwnServer;
let tmp: string;
let label: string;

test.beforeAll(async () => {
  fake = await startReplayServer((request) => {
    if (request.url === '/v1/models')
      return { json: { object: 'list', data: [{ id: 'replay-mini', object: 'model' }] } };
    const body = request.body as { messages: { role: string }[] };
    return { sse: body.messages.at(-1)?.role === 'tool' ? TEXT_SSE : TOOL_CALL_SSE };
  });
  label = `replay-mini via ${fake.origin}/v1`;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-models-'));
  fs.mkdirSync(path.join(tmp, 'home'));
  server = await startOwnServer(PORT, {
    SKILLCHAT_DB: path.join(tmp, 'test.db'),
    SKILLCHAT_HOME: path.join(tmp, 'home'),
    SKILLCHAT_OFFLINE_CHUNK_DELAY_MS: '0',
    SKILLCHAT_OPENAI_COMPATIBLE_URL: `${fake.origin}/v1`,
    SKILLCHAT_OLLAMA: 'off',
  });
});

test.afterAll(async () => {
  await server?.stop();
  await fake?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('GET /api/models lists the offline model and the compatible endpoint; PATCH refuses an unknown model', async ({
  request,
}) => {
  const listed = await request.get('/api/models');
  expect(listed.status()).toBe(200);
  expect((await listed.json()).models).toEqual([
    { id: 'offline:builtin', label: 'Offline model (built-in)', provider: 'offline' },
    { id: 'compatible:replay-mini', label, provider: 'compatible' },
  ]);

  const created = await request.post('/api/chats', { data: { id: 'models-api' }, headers: { origin: ORIGIN } });
  expect(created.status()).toBe(201);
  const bad = await request.patch('/api/chats/models-api', { data: { model: 'nope:x' }, headers: { origin: ORIGIN } });
  expect(bad.status()).toBe(400);
  expect(await bad.json()).toMatchObject({ code: 'bad_request:model', error: expect.stringContaining('nope:x') });
  const good = await request.patch('/api/chats/models-api', {
    data: { model: 'compatible:replay-mini' },
    headers: { origin: ORIGIN },
  });
  expect(good.status()).toBe(200);
  expect((await good.json()).chat).toMatchObject({ id: 'models-api', model: 'compatible:replay-mini' });
});

test('pick the compatible model, send, reload: the pick and the label under the answer stay', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  const options = chat.modelPicker.locator('option');
  await expect(options).toHaveText(['Offline model (built-in)', label]);
  await expect(chat.modelPicker).toHaveValue('offline:builtin');

  const asked = fake.received.length;
  await chat.modelPicker.selectOption({ label });
  await chat.send('Convert a,b to JSON');
  await chat.waitForAnswer(1);
  const chatId = await chat.chatId();
  expect(await chat.answerText()).toBe(REPLAYED_ANSWER.replaceAll('**', ''));
  await expect(chat.toolCards('skills.activate', chat.lastAnswer())).toBeVisible();
  await expect(chat.lastAnswer().getByTestId('answer-model')).toHaveText(label);
  // The fake server really answered: the tool call and then the final text, for the model picked.
  const completions = fake.received.slice(asked).filter((r) => r.url === '/v1/chat/completions');
  expect(completions.map((r) => (r.body as { model: string }).model)).toEqual(['replay-mini', 'replay-mini']);
  await page.screenshot({ path: screenshotPath('models-picker.png') });

  await page.reload();
  await expect(chat.modelPicker).toHaveValue('compatible:replay-mini');
  await expect(chat.lastAnswer().getByTestId('answer-model')).toHaveText(label);

  // Back to the offline model in the same chat: the next answer says so, and both labels survive a reload.
  await chat.modelPicker.selectOption('offline:builtin');
  await expect
    .poll(async () => (await page.request.get(`/api/chats/${chatId}`)).json().then((v) => v.chat.model))
    .toBe('offline:builtin');
  await chat.send('hello');
  await chat.waitForAnswer(2);
  await page.reload();
  await expect(chat.modelPicker).toHaveValue('offline:builtin');
  await expect(chat.assistantMessages.getByTestId('answer-model')).toHaveText([label, 'Offline model (built-in)']);
});
