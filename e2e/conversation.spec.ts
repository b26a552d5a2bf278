/** The chat people expect: skills across a long chat, search, export, timestamps. */
import { expect, test } from '@playwright/test';
import { ChatPage } from './chat-page';
import { screenshotPath } from './screenshot-path';

test('Regenerate after a model activation answers from the skill instructions again', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.send('Please write a commit message for my staged changes');
  await chat.waitForAnswer(1);
  await expect(chat.toolCards('skills.activate')).toHaveCount(1);
  expect(await chat.answerText()).toContain('# Commit messages');

  await expect(chat.chip('commit-message')).toBeVisible();

  await chat.regenerateButton.click();
  await chat.waitForAnswer(1);
  // The activation card went with the first answer; the instructions reach the model as <skill_content> anyway.
  await expect(chat.toolCards('skills.activate')).toHaveCount(0);
  const again = await chat.answerText();
  expect(again).toContain('# Commit messages');
  expect(again).toContain('CONVENTIONAL-COMMITS.md');
  // The skill is still active, so its chip stays without a reload; and after one (the server's list).
  await expect(chat.chip('commit-message')).toBeVisible();
  await page.reload();
  await expect(chat.chip('commit-message')).toBeVisible();
  expect(await chat.answerText()).toContain('# Commit messages');
});

test('the sidebar search finds chats by title and by what was said in them', async ({ page }) => {
  const chat = new ChatPage(page);
  const word = `zebra${Date.now().toString(36)}`;
  await chat.openNewChat();
  await chat.send(`Tell me about the ${word} migration`);
  await chat.waitForAnswer(1);
  const first = await chat.chatId();
  await chat.renameChat(first, 'Savanna notes');

  await chat.openNewChat();
  await chat.send(`hello there, quokka${word}`);
  await chat.waitForAnswer(1);
  const second = await chat.chatId();

  const search = page.getByTestId('chat-search');
  await search.fill(word.slice(0, 8));
  const hits = page.getByTestId('chat-search-hit');
  await expect(hits).toHaveCount(1);
  await expect(hits.first()).toContainText('Savanna notes');
  await expect(hits.first()).toContainText(`${word} migration`);
  await page.screenshot({ path: screenshotPath('search.png') });

  await search.fill('savan');
  await expect(hits).toHaveCount(1);
  // A title hit opens the chat at its end (a message hit opens it at the message: below).
  await expect(hits.first()).toHaveAttribute('href', `/chat/${first}`);
  await hits.first().click();
  await expect(page).toHaveURL(new RegExp(`/chat/${first}$`));
  await expect(chat.title).toHaveText('Savanna notes');

  await search.fill(`hello quokka${word}`);
  await expect(hits).toHaveCount(1);
  // A hit in what was said opens the chat at that message.
  await expect(hits.first()).toHaveAttribute('href', new RegExp(`^/chat/${second}\\?message=`));
  await search.fill('qqqnomatchqqq');
  await expect(page.getByTestId('chat-search-empty')).toBeVisible();
  await search.press('Escape');
  await expect(page.getByTestId('chat-list')).toBeVisible();
});

test('a chat exports as Markdown and JSON with its tool calls and activations', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.send('Please write a commit message for my staged changes');
  await chat.waitForAnswer(1);
  const id = await chat.chatId();

  const download = page.waitForEvent('download');
  await page.getByTestId('export-md').click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/\.md$/);
  const md = await (await import('node:fs/promises')).readFile((await file.path())!, 'utf8');
  expect(md).toContain('# Please write a commit message');
  expect(md).toContain('- `commit-message` (model, 1×)');
  expect(md).toMatch(/## You · \d{4}-\d\d-\d\d \d\d:\d\d UTC\n\nPlease write a commit message/);
  expect(md).toContain('**Tool `skills.activate`** (output-available)');
  expect(md).toContain('# Commit messages');

  const response = await page.request.get(`/api/chats/${id}/export?format=json`);
  expect(response.status()).toBe(200);
  expect(response.headers()['content-disposition']).toMatch(/^attachment; filename\*=UTF-8''.+\.json$/);
  const data = await response.json();
  expect(data.chat.id).toBe(id);
  expect(data.activations).toEqual([expect.objectContaining({ skillName: 'commit-message', lastHow: 'model' })]);
  const parts = data.messages[1].parts as Array<{ type: string; output?: { instructions?: string } }>;
  expect(parts.find((p) => p.type === 'tool-skills_activate')?.output?.instructions).toContain('# Commit messages');

  const bad = await page.request.get(`/api/chats/${id}/export?format=pdf`);
  expect(bad.status()).toBe(400);
  expect(await bad.json()).toMatchObject({ code: expect.any(String), error: expect.stringContaining('format') });
});

test('messages show when they were written, live and after a reload', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  const before = Date.now();
  await chat.send('hello, what time is it?');
  await chat.waitForAnswer(1);
  for (const message of [chat.userMessages.first(), chat.lastAnswer()]) {
    const time = message.locator('time[datetime]');
    await expect(time).toHaveCount(1);
    const at = Date.parse((await time.getAttribute('datetime'))!);
    expect(at).toBeGreaterThanOrEqual(before - 60_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 60_000);
  }
  await page.reload();
  await expect(chat.userMessages.first().locator('time[datetime]')).toHaveCount(1);
  await expect(chat.lastAnswer().locator('time[datetime]')).toHaveCount(1);
});

test('an empty chat offers starters from the installed skills; one fills the composer', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  const starter = page.getByTestId('starter-commit-message');
  await expect(starter).toBeVisible();
  await expect(starter).toContainText('Conventional Commits');
  await starter.click();
  await expect(chat.input).toHaveValue('/commit-message ');
  await expect(chat.input).toBeFocused();
  await chat.typeAndSend('fix a typo in the README');
  await chat.waitForAnswer(1);
  await expect(chat.toolCards('skills.activate')).toHaveCount(1);
  await expect(page.getByTestId('starters')).toHaveCount(0);
});

test('Copy puts the whole message, as written, on the clipboard', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.send("hello there, what's the weather like?");
  await chat.waitForAnswer(1);
  const copy = chat.lastAnswer().getByTestId('copy-message');
  await copy.click();
  await expect(copy).toHaveText('Copied');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  // The Markdown source: the backticks the page renders as code are still there.
  expect(copied).toContain('`OPENAI_API_KEY`');
  expect(copied.replace(/[`*]/g, '').replace(/\s+/g, ' ')).toContain(
    (await chat.answerText()).split('\n')[0]!.replace(/\s+/g, ' ').trim(),
  );
});

test('Stop reads "Stopped" at once; a send while an answer runs keeps the text', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  // A long answer (activation, three reads, excerpts), so it is still running while the test types.
  await chat.send('/skills-system-validation validate that skills.activate and skills.readResource work');
  await expect.poll(async () => (await chat.answerText()).length, { timeout: 30_000 }).toBeGreaterThan(5);
  await expect(chat.stopButton).toBeVisible();

  // Enter while the answer runs: nothing is sent and nothing typed is lost.
  await chat.input.fill('a follow-up question');
  await chat.input.press('Enter');
  await expect(chat.input).toHaveValue('a follow-up question');
  await expect(chat.userMessages).toHaveCount(1);

  await chat.stopButton.click();
  await expect(chat.lastAnswer().getByTestId('message-status')).toHaveText('Stopped.', { timeout: 1000 });
  await expect(chat.input).toHaveValue('a follow-up question');
  // The server stores the stopped answer before it takes the next message.
  await page.waitForTimeout(1000);
  await chat.input.press('Enter');
  await chat.waitForAnswer(2);
  await expect(chat.userMessages).toHaveCount(2);
  await expect(chat.input).toHaveValue('');
});

test('a send refused because an answer runs (from another tab) keeps the text in the box and says why', async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.send('hello there');
  await chat.waitForAnswer(1);
  const id = await chat.chatId();

  // Another tab (here: the API, as a tab would) starts a long answer in the same chat.
  const origin = new URL(page.url()).origin;
  const elsewhere = page.request.post('/api/chat', {
    headers: { origin },
    data: {
      chatId: id,
      trigger: 'submit-message',
      message: {
        id: `other-tab-${Date.now()}`,
        role: 'user',
        parts: [
          {
            type: 'text',
            text: '/skills-system-validation validate that skills.activate and skills.readResource work',
          },
        ],
      },
    },
  });
  await expect
    .poll(async () => (await (await page.request.get(`/api/chats/${id}`)).json()).messages.length)
    .toBeGreaterThanOrEqual(3);

  await chat.send('my follow-up question');
  await expect(page.getByTestId('chat-error')).toContainText('still answering');
  await expect(chat.input).toHaveValue('my follow-up question');
  // The refused message is not shown as sent.
  await expect(chat.userMessages).toHaveCount(1);
  await expect(chat.userMessages.filter({ hasText: 'my follow-up question' })).toHaveCount(0);
  await elsewhere;
});
