/** Chats as things a person keeps: they survive a reload, can be renamed, deleted, and stopped mid-answer. */
import { expect, test } from '@playwright/test';
import { ChatPage } from './chat-page';

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

test('a chat survives a reload, and can be renamed and deleted from the sidebar', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.pickSkill('commit', 'commit-message');
  await chat.typeAndSend('word a commit for: fix the login redirect loop');
  await chat.waitForAnswer(1);
  const id = await chat.chatId();
  await expect(chat.chatItems.first()).toHaveAttribute('data-chat-id', id);

  const answerBefore = squash(await chat.answerText());
  const cardsBefore = await chat.allToolCards().count();
  expect(cardsBefore).toBeGreaterThan(0);

  await page.reload();
  await expect(chat.userMessages).toHaveCount(1);
  await expect(chat.userMessages.first()).toContainText('word a commit for: fix the login redirect loop');
  await expect(chat.assistantMessages).toHaveCount(1);
  expect(squash(await chat.answerText())).toBe(answerBefore);
  await expect(chat.allToolCards()).toHaveCount(cardsBefore);
  await expect(chat.toolCards('skills.activate')).toHaveAttribute('data-state', 'done');
  await expect(chat.chip('commit-message')).toBeVisible();
  await expect(chat.chatItem(id)).toBeVisible();

  await chat.renameChat(id, 'Login redirect commit');
  await expect(chat.chatItem(id)).toContainText('Login redirect commit');
  await expect(chat.title).toHaveText('Login redirect commit');
  await page.reload();
  await expect(chat.chatItem(id)).toContainText('Login redirect commit');
  await expect(chat.title).toHaveText('Login redirect commit');

  await chat.deleteChat(id);
  await expect(chat.chatItem(id)).toHaveCount(0);
  await expect(page).toHaveURL(/\/$/);
  const response = await page.goto(`/chat/${id}`);
  expect(response?.status()).toBe(404);
});

test('Stop ends the answer where it is, and the partial answer is still there after a reload', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.send('Can you write a commit message for my staged changes?');

  // Let a few words arrive, then stop mid-stream.
  await expect.poll(async () => (await chat.answerText()).length, { timeout: 30_000 }).toBeGreaterThan(20);
  await chat.stopButton.click();
  await expect(chat.stopButton).toBeHidden();
  await expect(chat.sendButton).toBeVisible();

  const partial = squash(await chat.answerText());
  expect(partial).not.toBe('');
  // The offline model's closing note (the end of its answer) never arrived, and nothing more streams in.
  expect(partial).not.toContain('OPENAI_API_KEY');
  await page.waitForTimeout(1500);
  expect(squash(await chat.answerText())).toBe(partial);

  await page.reload();
  await expect(chat.assistantMessages).toHaveCount(1);
  const stored = squash(await chat.answerText());
  expect(stored.startsWith(partial.slice(0, 20))).toBe(true);
  expect(stored).not.toContain('OPENAI_API_KEY');
  // The reloaded answer says why it stops short.
  await expect(chat.lastAnswer().getByTestId('message-status')).toHaveAttribute('data-status', 'aborted');
});

test('Regenerate answers again; New chat starts over; Back returns to the first chat', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.send("hello there, what's the weather like?");
  await chat.waitForAnswer(1);
  const firstId = await chat.chatId();
  const firstAnswerId = await chat.lastAnswer().getAttribute('data-message-id');

  await chat.regenerateButton.click();
  await chat.waitForAnswer(1);
  await expect(chat.lastAnswer()).not.toHaveAttribute('data-message-id', firstAnswerId ?? '');
  await expect(chat.userMessages).toHaveCount(1);

  await page.getByTestId('new-chat-button').click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByTestId('empty-chat')).toBeVisible();
  await expect(chat.chatItem(firstId)).toBeVisible();
  await chat.send('Can you write a commit message for my staged changes?');
  await chat.waitForAnswer(1);
  const secondId = await chat.chatId();
  expect(secondId).not.toBe(firstId);
  await expect(chat.chatItems.first()).toHaveAttribute('data-chat-id', secondId);

  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`/chat/${firstId}$`));
  // The message also shows its time: compare the words, not the whole element.
  await expect(chat.userMessages).toHaveCount(1);
  await expect(chat.userMessages.first()).toContainText("hello there, what's the weather like?");
  // The regenerated answer replaced the first one on the server too.
  await expect(chat.assistantMessages).toHaveCount(1);
});

test('the sidebar links to the skills admin page', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await page.getByTestId('admin-link').click();
  await expect(page).toHaveURL(/\/admin$/);
  await expect(page.getByTestId('skill-row').first()).toBeVisible();
});
