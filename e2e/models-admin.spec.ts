/**
 * A model added in the browser: on /admin an admin adds an OpenAI-compatible endpoint (a local fake on 127.0.0.1
 * replaying recorded Chat Completions), "Test" lists its models (and says why a wrong key is refused), and a new
 * chat picks one at once, with no restart, and gets its answer. The key never appears in a page or a response.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { type ReplayServer, startReplayServer } from '../test/model/replay-server';
import { ChatPage } from './chat-page';
import { type OwnServer, startOwnServer } from './own-server';
import { screenshotPath } from './screenshot-path';

test.describe.configure({ mode: 'serial' });

const PORT = Number(process.env.E2E_MODELS_ADMIN_PORT ?? 3241);
test.use({ baseURL: `http://127.0.0.1:${PORT}` });

const appDir = path.resolve(import.meta.dirname, '..');
const fixture = (name: string) => fs.readFileSync(path.join(appDir, 'server/model/fixtures', name), 'utf8');
const KEY = 'sk-e2e-admin-key-5eb3f1';
const REPLAYED_ANSWER = "I activated csv-to-json. Paste your CSV and I'll convert it to JSON.";
const LABEL = 'replay-mini via Fake vLLM';

let fake: ReplayServer;
let server: OwnServer;
let tmp: string;

test.beforeAll(async () => {
  fake = await startReplayServer((request) => {
    if (request.headers.authorization !== `Bearer ${KEY}`) return { json: { error: 'bad key' }, status: 401 };
    if (request.url === '/v1/models')
      return { json: { object: 'list', data: [{ id: 'replay-mini' }, { id: 'replay-max' }] } };
    const body = request.body as { stream?: boolean; messages: { role: string }[] };
    if (!body.stream) {
      const message = { role: 'assistant', content: 'CSV to JSON help' };
      return {
        json: {
          id: 't',
          object: 'chat.completion',
          created: 1,
          model: 'm',
          choices: [{ index: 0, message, finish_reason: 'stop' }],
        },
      };
    }
    return {
      sse: fixture(
        body.messages.at(-1)?.role === 'tool' ? 'chat-completions-text.sse.txt' : 'chat-completions-tool-call.sse.txt',
      ),
    };
  });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-models-admin-'));
  fs.mkdirSync(path.join(tmp, 'home'));
  server = await startOwnServer(PORT, {
    SKILLCHAT_DB: path.join(tmp, 'test.db'),
    SKILLCHAT_HOME: path.join(tmp, 'home'),
    SKILLCHAT_OFFLINE_CHUNK_DELAY_MS: '0',
    SKILLCHAT_OLLAMA: 'off',
  });
});

test.afterAll(async () => {
  await server?.stop();
  await fake?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('an admin adds a compatible endpoint, Test lists its models, and a new chat answers with one', async ({
  page,
}) => {
  await page.goto(`${server.origin}/admin#models`);
  const section = page.getByTestId('models-section');
  await expect(section.getByTestId('model-origin')).toHaveCount(1);
  await expect(section.getByTestId('connections-empty')).toBeVisible();

  await section.getByTestId('connection-kind').selectOption('compatible');
  await section.getByTestId('connection-name').fill('Fake vLLM');
  await section.getByTestId('connection-base-url').fill(`${fake.origin}/v1`);
  await section.getByTestId('connection-key').fill('sk-wrong-key-0000');
  await section.getByTestId('connection-test').click();
  await expect(section.getByTestId('connection-test-problem')).toHaveText(
    `${fake.origin}/v1 refused the key (HTTP 401): check it, and that it may list models`,
  );

  await section.getByTestId('connection-key').fill(KEY);
  await section.getByTestId('connection-test').click();
  const result = section.getByTestId('connection-test-result');
  await expect(result).toContainText('It lists 2 models');
  await section.getByTestId('connection-all-models').uncheck();
  await expect(result.getByTestId('connection-model')).toHaveCount(2);
  await result.locator('[data-model="replay-max"]').uncheck();
  await section.screenshot({ path: screenshotPath('models-admin-test.png') });
  await section.getByTestId('connection-save').click();

  const row = section.getByTestId('connection-row');
  await expect(row).toHaveCount(1);
  await expect(row).toContainText('Fake vLLM');
  await expect(row).toContainText('replay-mini');
  await expect(row.getByTestId('connection-key-cell')).toHaveText('set');
  await expect(section.locator('[data-testid="model-origin"][data-source="admin"]')).toHaveText([
    `${LABEL}compatibleadded here: Fake vLLM`,
  ]);
  await expect(section.getByTestId('connection-key')).toHaveValue('');
  await section.screenshot({ path: screenshotPath('models-admin.png') });
  expect(await page.content()).not.toContain(KEY);

  // Edit: the form says a key is set, never what it is.
  await row.getByTestId('connection-edit').click();
  await expect(section.getByTestId('connection-key-state')).toHaveText('set: type to replace');
  await expect(section.getByTestId('connection-key')).toHaveValue('');
  await section.getByTestId('connection-cancel').click();

  const listed = await page.request.get(`${server.origin}/api/admin/model-connections`);
  expect(listed.status()).toBe(200);
  expect(await listed.text()).not.toContain(KEY);

  // A new chat, same server, no restart: the picker offers the model; picked, it answers through the fake.
  const chat = new ChatPage(page);
  await chat.openNewChat();
  const asked = fake.received.length;
  await chat.modelPicker.selectOption({ label: LABEL });
  await chat.send('Convert a,b to JSON');
  await chat.waitForAnswer(1);
  expect(await chat.answerText()).toBe(REPLAYED_ANSWER);
  await expect(chat.lastAnswer().getByTestId('answer-model')).toHaveText(LABEL);
  const turn = fake.received.slice(asked).filter((r) => r.url === '/v1/chat/completions');
  expect(turn.length).toBeGreaterThanOrEqual(2);
  expect(turn.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  expect(await page.content()).not.toContain(KEY);
  await page.screenshot({ path: screenshotPath('models-admin-chat.png') });

  // Removed on /admin: gone from the next picker.
  await page.goto(`${server.origin}/admin#models`);
  await section.getByTestId('connection-remove').click();
  await expect(section.getByTestId('connections-empty')).toBeVisible();
  const models = await (await page.request.get(`${server.origin}/api/models`)).json();
  expect(models.models.map((m: { id: string }) => m.id)).toEqual(['offline:builtin']);
});
