/**
 * The model picker, as a person uses it, against local fakes of each kind of provider, all started here on
 * 127.0.0.1 and replaying recorded streams with a tool call (`server/model/fixtures/`): an OpenAI-compatible server
 * (`/v1/models` + Chat Completions), Anthropic's Messages API, and Ollama (`/api/tags`, `/api/show`, its `/v1`).
 * The picker lists them beside the offline model; picking one and sending gets its answer, labelled under the
 * answer; a reload keeps the pick and the labels. Runs its own `next start` with the providers' variables pointing
 * at the fakes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { type ReplayServer, type Reply, startReplayServer } from '../test/model/replay-server';
import { ChatPage } from './chat-page';
import { type OwnServer, startOwnServer } from './own-server';
import { screenshotPath } from './screenshot-path';

test.describe.configure({ mode: 'serial' });

const appDir = path.resolve(import.meta.dirname, '..');
const PORT = Number(process.env.E2E_MODELS_PORT ?? 3213);
const ORIGIN = `http://127.0.0.1:${PORT}`;
const fixture = (name: string) => fs.readFileSync(path.join(appDir, 'server/model/fixtures', name), 'utf8');
const REPLAYED_ANSWER = "I activated csv-to-json. Paste your CSV and I'll convert it to JSON.";
const ANTHROPIC_LABEL = 'Anthropic claude-sonnet-4-5';
const OLLAMA_LABEL = 'qwen3:8b (Ollama)';

test.use({ baseURL: ORIGIN });

let compatible: ReplayServer;
let anthropic: ReplayServer;
let ollama: ReplayServer;
let server: OwnServer;
let tmp: string;
let label: string;

/** The title each fake names a chat with after its first answer (a plain, non-streamed call). */
const TITLE = 'CSV to JSON help';

/** Answers streamed (what the chat shows), as opposed to the title call after the first exchange. */
const streamed = (r: { body: unknown }) => (r.body as { stream?: boolean }).stream === true;

/** Chat Completions: the tool call first, the answer once the conversation ends with the tool's result. */
function chatCompletions(toolCall: string, text: string) {
  return (body: unknown): Reply => {
    if (!(body as { stream?: boolean }).stream) {
      const message = { role: 'assistant', content: TITLE };
      return {
        json: {
          id: 'chatcmpl-title',
          object: 'chat.completion',
          created: 1763712000,
          model: 'm',
          choices: [{ index: 0, message, finish_reason: 'stop' }],
        },
      };
    }
    return { sse: (body as { messages: { role: string }[] }).messages.at(-1)?.role === 'tool' ? text : toolCall };
  };
}

test.beforeAll(async () => {
  const openaiReplay = chatCompletions(
    fixture('chat-completions-tool-call.sse.txt'),
    fixture('chat-completions-text.sse.txt'),
  );
  compatible = await startReplayServer((request) =>
    request.url === '/v1/models'
      ? { json: { object: 'list', data: [{ id: 'replay-mini', object: 'model' }] } }
      : openaiReplay(request.body),
  );
  anthropic = await startReplayServer((request) => {
    if (!streamed(request)) {
      const content = [{ type: 'text', text: TITLE }];
      return {
        json: {
          id: 'msg_title',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content,
          stop_reason: 'end_turn',
          usage: { input_tokens: 20, output_tokens: 4 },
        },
      };
    }
    const last = (request.body as { messages: { content: unknown }[] }).messages.at(-1)?.content;
    const answersTool = Array.isArray(last) && last.some((b: { type: string }) => b.type === 'tool_result');
    return { sse: fixture(answersTool ? 'anthropic-messages-text.sse.txt' : 'anthropic-messages-tool-call.sse.txt') };
  });
  const ollamaReplay = chatCompletions(fixture('ollama-chat-tool-call.sse.txt'), fixture('ollama-chat-text.sse.txt'));
  ollama = await startReplayServer((request) => {
    if (request.url === '/api/tags') return { json: { models: [{ name: 'qwen3:8b', model: 'qwen3:8b' }] } };
    if (request.url === '/api/show') {
      return { json: { model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960 } } };
    }
    return ollamaReplay(request.body);
  });
  label = `replay-mini via ${compatible.origin}/v1`;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-models-'));
  fs.mkdirSync(path.join(tmp, 'home'));
  server = await startOwnServer(PORT, {
    SKILLCHAT_DB: path.join(tmp, 'test.db'),
    SKILLCHAT_HOME: path.join(tmp, 'home'),
    SKILLCHAT_OFFLINE_CHUNK_DELAY_MS: '0',
    SKILLCHAT_MODEL: 'offline:builtin',
    SKILLCHAT_OPENAI_COMPATIBLE_URL: `${compatible.origin}/v1`,
    ANTHROPIC_API_KEY: 'sk-ant-e2e',
    ANTHROPIC_BASE_URL: `${anthropic.origin}/v1`,
    ANTHROPIC_MODELS: 'claude-sonnet-4-5',
    SKILLCHAT_OLLAMA_URL: ollama.origin,
  });
});

test.afterAll(async () => {
  await server?.stop();
  await Promise.all([compatible?.close(), anthropic?.close(), ollama?.close()]);
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('GET /api/models lists the offline model and the compatible endpoint; PATCH refuses an unknown model', async ({
  request,
}) => {
  const listed = await request.get('/api/models');
  expect(listed.status()).toBe(200);
  expect((await listed.json()).models).toEqual([
    { id: 'offline:builtin', label: 'Offline model (built-in)', provider: 'offline' },
    { id: 'anthropic:claude-sonnet-4-5', label: ANTHROPIC_LABEL, provider: 'anthropic', contextWindow: 200_000 },
    { id: 'compatible:replay-mini', label, provider: 'compatible' },
    { id: 'ollama:qwen3:8b', label: OLLAMA_LABEL, provider: 'ollama', contextWindow: 40960 },
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
  await expect(options).toHaveText(['Offline model (built-in)', ANTHROPIC_LABEL, label, OLLAMA_LABEL]);
  await expect(chat.modelPicker).toHaveValue('offline:builtin');

  const asked = compatible.received.length;
  await chat.modelPicker.selectOption({ label });
  await chat.send('Convert a,b to JSON');
  await chat.waitForAnswer(1);
  const chatId = await chat.chatId();
  expect(await chat.answerText()).toBe(REPLAYED_ANSWER);
  await expect(chat.toolCards('skills.activate', chat.lastAnswer())).toBeVisible();
  await expect(chat.lastAnswer().getByTestId('answer-model')).toHaveText(label);
  // The fake server really answered: the tool call and then the final text, for the model picked.
  const completions = compatible.received.slice(asked).filter((r) => r.url === '/v1/chat/completions' && streamed(r));
  expect(completions.map((r) => (r.body as { model: string }).model)).toEqual(['replay-mini', 'replay-mini']);
  // After the first exchange the model named the chat, and the sidebar shows it.
  await expect(chat.chatItem(chatId)).toContainText(TITLE);
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

for (const { name, pick, answer, received } of [
  {
    name: 'Anthropic',
    pick: ANTHROPIC_LABEL,
    answer: "The skill is loaded: csv-to-json. Paste your CSV and I'll convert it.",
    received: () => anthropic.received.filter((r) => r.url === '/v1/messages' && streamed(r)),
  },
  {
    name: 'Ollama',
    pick: OLLAMA_LABEL,
    answer: 'Loaded csv-to-json. Send the CSV and I will convert it.',
    received: () => ollama.received.filter((r) => r.url === '/v1/chat/completions' && streamed(r)),
  },
]) {
  test(`${name}: picked, it calls the tool and answers; the label stays after a reload`, async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.openNewChat();
    const before = received().length;
    await chat.modelPicker.selectOption({ label: pick });
    await chat.send('Convert a,b to JSON');
    await chat.waitForAnswer(1);
    await expect(chat.toolCards('skills.activate', chat.lastAnswer())).toBeVisible();
    expect(await chat.answerText()).toContain(answer);
    await expect(chat.lastAnswer().getByTestId('answer-model')).toHaveText(pick);
    // The tool call, then the answer to its result: two requests to that provider's fake (and a title call).
    expect(received().length - before).toBe(2);
    await expect(chat.title).toHaveText(TITLE);
    await page.reload();
    await expect(chat.modelPicker.locator('option:checked')).toHaveText(pick);
    await expect(chat.lastAnswer().getByTestId('answer-model')).toHaveText(pick);
  });
}

test.describe('with no model configured (the shared server: offline only)', () => {
  test.use({ baseURL: `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 3100)}` });

  test('the picker says how to add a model, and the offline model does not pretend it is the only way', async ({
    page,
  }) => {
    const chat = new ChatPage(page);
    await chat.openNewChat();
    const hint = page.getByTestId('model-hint');
    await expect(hint).toHaveAttribute('label', 'Add a model');
    const lines = await hint
      .locator('option')
      .evaluateAll((options) =>
        options.map((o) => ({ text: o.textContent, disabled: (o as HTMLOptionElement).disabled })),
      );
    expect(lines.every((l) => l.disabled)).toBe(true);
    const said = lines.map((l) => l.text).join(' ');
    for (const key of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'OPENAI_BASE_URL', 'Ollama']) expect(said).toContain(key);
    await expect(chat.modelPicker).toHaveValue('offline:builtin');
  });
});
