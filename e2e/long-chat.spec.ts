/**
 * A real model's chat, as a person sees it, against a local fake of Ollama (its own `next start`, on a free port):
 * after the first exchange the sidebar shows the title the model wrote; a chat that outgrows the model's small
 * context window gets its earlier messages summarised by the model, shown as a divider whose summary can be read.
 * The fake answers the streamed chat from a recorded fixture and the two side calls (title, summary) as plain JSON.
 * A chat of hundreds of messages (written into the server's database) opens with its newest page only;
 * older pages load on scroll without moving what is read, a search hit opens the chat at an old message, export
 * has everything, and Continue, Regenerate, versions and editing an old message still work.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { TITLE_INSTRUCTIONS } from '../server/chat/generated-title';
import { SUMMARY_INSTRUCTIONS } from '../server/chat/summary';
import { closeDb, openDb, sqliteDatabase } from '../server/db';
import { longChatMessageId, seedLongChat } from '../test/long-chat';
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

const LONG = 'long-history';
const COUNT = 300;
const FIRST_WORDS = 'Where is the narwhalfirst budget from March?';

/**
 * Scrolls the list to its top and returns the id of the first message in view and its distance from the list's top
 * edge, in one task: the older page the scroll asks for cannot arrive in between.
 */
function scrollToTop(page: Page) {
  return page.getByTestId('message-list').evaluate((list) => {
    list.scrollTop = 0;
    const top = list.getBoundingClientRect().top;
    for (const el of list.querySelectorAll<HTMLElement>('[data-message-id]')) {
      const box = el.getBoundingClientRect();
      if (box.bottom > top) return { id: el.dataset.messageId!, offset: Math.round(box.top - top) };
    }
    return null;
  });
}

test('a chat of hundreds of messages opens with its newest page and loads the rest as the person scrolls up', async ({
  page,
}) => {
  const d = sqliteDatabase(openDb(path.join(tmp, 'test.db')));
  try {
    await seedLongChat(d, {
      chatId: LONG,
      count: COUNT,
      title: 'Quarterly archive',
      firstText: FIRST_WORDS,
      interrupted: true,
    });
  } finally {
    closeDb(d);
  }
  const id = (n: number) => longChatMessageId(LONG, n);
  const shown = page.locator('[data-testid="message-list"] [data-message-id]');

  // The page's HTML carries the newest page, not the chat.
  const html = await (await page.request.get(`${server.origin}/chat/${LONG}`)).text();
  expect(Buffer.byteLength(html)).toBeLessThan(300 * 1024);
  expect(html).toContain(id(COUNT));
  expect(html).not.toMatch(new RegExp(`${id(2)}(?!\\d)`));

  const chat = new ChatPage(page);
  await page.goto(`${server.origin}/chat/${LONG}`);
  await chat.ready();
  const initial = await shown.count();
  expect(initial).toBeGreaterThan(5);
  expect(initial).toBeLessThanOrEqual(50);
  await expect(page.locator(`[data-message-id="${id(COUNT)}"]`)).toBeInViewport();
  await expect(page.getByTestId('continue-button')).toBeVisible();

  // Scrolling to the top loads the page before; what was at the top stays where it was.
  const before = await scrollToTop(page);
  await expect.poll(() => shown.count()).toBeGreaterThan(initial);
  await expect(page.getByTestId('load-earlier')).not.toHaveAttribute('aria-busy', 'true');
  const kept = page.locator(`[data-message-id="${before!.id}"]`);
  // Read a few frames later, once what arrived has been drawn near the view.
  const offset = await kept.evaluate(async (el) => {
    for (let i = 0; i < 4; i++) await new Promise((resolve) => requestAnimationFrame(resolve));
    return el.getBoundingClientRect().top - el.closest('[data-testid="message-list"]')!.getBoundingClientRect().top;
  });
  // Without the anchor the message would drop by the whole page that arrived above it (thousands of px); without
  // holding it, by the code block just above it settling from its 200 px stand-in height a frame later (85 px).
  expect(Math.abs(offset - before!.offset)).toBeLessThanOrEqual(2);
  expect(await shown.first().getAttribute('data-message-id')).not.toBe(before!.id);
  await page.getByTestId('load-earlier').scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('long-chat-older-page.png') });

  // The button loads too (keyboard and screen-reader people need no scrolling), down to the first message.
  for (let i = 0; i < 12 && (await page.getByTestId('load-earlier-button').count()) > 0; i++) {
    await page
      .getByTestId('load-earlier-button')
      .click({ timeout: 5000 })
      .catch(() => {});
    await page.waitForTimeout(100);
  }
  await expect(page.getByTestId('load-earlier')).toHaveCount(0);
  await expect(shown).toHaveCount(COUNT);
  await expect(shown.first()).toHaveAttribute('data-message-id', id(1));

  // A search hit on the first message opens the chat there, with the newest page still below.
  await page.goto(`${server.origin}/`);
  await page.getByTestId('chat-search').fill('narwhalfirst');
  const hit = page.getByTestId('chat-search-hit');
  await expect(hit).toHaveCount(1);
  await hit.click();
  await expect(page).toHaveURL(new RegExp(`/chat/${LONG}\\?message=${id(1)}$`));
  const found = page.locator(`[data-message-id="${id(1)}"]`);
  await expect(found).toBeInViewport();
  await expect(found).toHaveAttribute('data-search-hit', 'true');
  await expect(found).toContainText('narwhalfirst');
  await expect(page.locator(`[data-message-id="${id(COUNT)}"]`)).toHaveCount(1);
  await expect(page.getByTestId('load-later')).toHaveCount(1);
  await page.screenshot({ path: screenshotPath('long-chat-search-hit.png') });
  // Scrolling down fills the gap between the hit and the newest page.
  for (let i = 0; i < 20 && (await page.getByTestId('load-later').count()) > 0; i++) {
    await page
      .getByTestId('load-later')
      .scrollIntoViewIfNeeded()
      .catch(() => {});
    await page.waitForTimeout(150);
  }
  await expect(page.getByTestId('load-later')).toHaveCount(0);
  await expect(shown).toHaveCount(COUNT);

  // Export reads the whole chat from the server.
  const md = await (await page.request.get(`${server.origin}/api/chats/${LONG}/export?format=md`)).text();
  expect(md).toContain(FIRST_WORDS);
  expect(md).toContain(`Answer ${COUNT}.`);
  const json = await (await page.request.get(`${server.origin}/api/chats/${LONG}/export?format=json`)).json();
  expect(json.messages).toHaveLength(COUNT);

  // At the tail: Continue the interrupted answer, then Regenerate it; the versions switch back and forth.
  await page.goto(`${server.origin}/chat/${LONG}`);
  await chat.ready();
  await page.getByTestId('continue-button').click();
  await chat.waitForAnswer();
  await expect(page.locator(`[data-message-id="${id(COUNT)}"]`)).toHaveCount(1);
  const continued = await chat.answerText();
  await chat.regenerateButton.click();
  await chat.waitForAnswer();
  const label = chat.lastAnswer().getByTestId('version-label');
  await expect(label).toHaveText('2/2');
  await chat.lastAnswer().getByTestId('version-prev').click();
  await expect(label).toHaveText('1/2');
  expect(await chat.answerText()).toBe(continued);
  // Nothing above the tail moved: the interrupted answer is still just above.
  await expect(page.locator(`[data-message-id="${id(COUNT)}"]`)).toHaveCount(1);

  // Editing a message of an older page: it moves to the end of what is shown and gets a new answer.
  await page.getByTestId('message-list').evaluate((el) => {
    el.scrollTop = 0;
  });
  const old = page.locator(`[data-message-id="${id(COUNT - 101)}"]`);
  for (let i = 0; i < 10 && (await old.count()) === 0; i++) {
    await page
      .getByTestId('load-earlier-button')
      .click({ timeout: 5000 })
      .catch(() => {});
    await page.waitForTimeout(150);
  }
  await old.getByTestId('message-edit').click();
  await page.getByTestId('message-edit-input').fill('An edited old question');
  await page.getByTestId('message-edit-save').click();
  await chat.waitForAnswer();
  await expect(chat.userMessages.last()).toHaveText(/An edited old question/);
  await expect(chat.userMessages.last().getByTestId('version-label')).toHaveText('2/2');
  await expect(page.locator(`[data-message-id="${id(COUNT)}"]`)).toHaveCount(0);
  // After a reload the edit is the chat's end; its first version comes back with the switcher.
  await page.reload();
  await chat.ready();
  await expect(chat.userMessages.last()).toHaveText(/An edited old question/);
  await chat.userMessages.last().getByTestId('version-prev').click();
  await expect(page.locator(`[data-message-id="${id(COUNT)}"]`)).toHaveCount(1);
});
