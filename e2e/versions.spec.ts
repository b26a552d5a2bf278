/** Edit a sent message and resend; Regenerate keeps the previous answer; both browsable as 1/2, 2/2. */
import { expect, type Page, test } from '@playwright/test';
import { ChatPage } from './chat-page';
import { screenshotPath } from './screenshot-path';

async function editAndResend(chat: ChatPage, page: Page, text: string) {
  const first = chat.userMessages.first();
  await first.getByTestId('message-edit').click();
  const input = page.getByTestId('message-edit-input');
  await expect(input).toBeFocused();
  await input.fill(text);
  await page.getByTestId('message-edit-save').click();
}

for (const viewport of [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
]) {
  test.describe(viewport.name, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test('an edited message gets a new answer; the original and its answer stay as version 1/2', async ({ page }) => {
      const chat = new ChatPage(page);
      await chat.openNewChat();
      await chat.send('What is a haiku about autumn leaves?');
      await chat.waitForAnswer(1);
      await chat.chatId();
      const firstAnswerId = await chat.lastAnswer().getAttribute('data-message-id');

      // Cancel leaves the message as it was.
      await chat.userMessages.first().getByTestId('message-edit').click();
      await page.getByTestId('message-edit-input').fill('never sent');
      await page.screenshot({ path: screenshotPath(`versions-editing-${viewport.name}.png`) });
      await page.getByRole('button', { name: 'Cancel' }).click();
      await expect(chat.userMessages.first()).toContainText('What is a haiku about autumn leaves?');
      await expect(chat.userMessages.first().getByTestId('message-edit')).toBeFocused();
      // Keyboard: Enter opens the editor, Escape closes it, focus comes back to Edit.
      await page.keyboard.press('Enter');
      await expect(page.getByTestId('message-edit-input')).toBeFocused();
      await page.keyboard.press('Escape');
      await expect(chat.userMessages.first().getByTestId('message-edit')).toBeFocused();

      await editAndResend(chat, page, 'Write a limerick about a cat instead');
      await chat.waitForAnswer(1);
      await expect(chat.userMessages).toHaveCount(1);
      await expect(chat.userMessages.first()).toContainText('limerick about a cat');
      const label = chat.userMessages.first().getByTestId('version-label');
      await expect(label).toHaveText('2/2');
      const secondAnswerId = await chat.lastAnswer().getAttribute('data-message-id');
      expect(secondAnswerId).not.toBe(firstAnswerId);
      await chat.userMessages.first().scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenshotPath(`versions-edit-${viewport.name}.png`) });

      // Back to the original message and its answer.
      await chat.userMessages.first().getByTestId('version-prev').click();
      await expect(label).toHaveText('1/2');
      await expect(chat.userMessages.first()).toContainText('haiku about autumn leaves');
      await expect(chat.lastAnswer()).toHaveAttribute('data-message-id', firstAnswerId!);
      await expect(chat.userMessages.first().getByTestId('version-prev')).toBeDisabled();

      // Keyboard: focus Next and press Enter.
      await chat.userMessages.first().getByTestId('version-next').focus();
      await page.keyboard.press('Enter');
      await expect(label).toHaveText('2/2');
      await expect(chat.userMessages.first()).toContainText('limerick about a cat');
      await expect(chat.lastAnswer()).toHaveAttribute('data-message-id', secondAnswerId!);

      // After a reload both versions are still there.
      await page.reload();
      await expect(chat.userMessages.first().getByTestId('version-label')).toHaveText('2/2');
      await chat.userMessages.first().getByTestId('version-prev').click();
      await expect(chat.userMessages.first().getByTestId('version-label')).toHaveText('1/2');
      await expect(chat.userMessages.first()).toContainText('haiku about autumn leaves');
    });

    test('Regenerate keeps the previous answer as version 1/2, after a reload too', async ({ page }) => {
      const chat = new ChatPage(page);
      await chat.openNewChat();
      await chat.send('Please write a commit message for my staged changes');
      await chat.waitForAnswer(1);
      await chat.chatId();
      const firstAnswerId = await chat.lastAnswer().getAttribute('data-message-id');
      await expect(chat.toolCards('skills.activate')).toHaveCount(1);

      await chat.regenerateButton.click();
      await chat.waitForAnswer(1);
      const label = chat.lastAnswer().getByTestId('version-label');
      await expect(label).toHaveText('2/2');
      const secondAnswerId = await chat.lastAnswer().getAttribute('data-message-id');
      expect(secondAnswerId).not.toBe(firstAnswerId);
      // The regenerated answer still has the skill's instructions; the chip stays.
      expect(await chat.answerText()).toContain('# Commit messages');
      await expect(chat.chip('commit-message')).toBeVisible();
      await chat.lastAnswer().getByTestId('version-switcher').scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenshotPath(`versions-regenerate-${viewport.name}.png`) });

      await chat.lastAnswer().getByRole('button', { name: 'Previous version of this answer' }).click();
      await expect(chat.lastAnswer()).toHaveAttribute('data-message-id', firstAnswerId!);
      await expect(chat.lastAnswer().getByTestId('version-label')).toHaveText('1/2');
      await expect(chat.toolCards('skills.activate')).toHaveCount(1);

      await page.reload();
      await expect(chat.lastAnswer().getByTestId('version-label')).toHaveText('1/2');
      await expect(chat.lastAnswer()).toHaveAttribute('data-message-id', firstAnswerId!);
      await chat.lastAnswer().getByTestId('version-next').click();
      await expect(chat.lastAnswer()).toHaveAttribute('data-message-id', secondAnswerId!);
      await expect(chat.lastAnswer().getByTestId('version-label')).toHaveText('2/2');
      await expect(chat.chip('commit-message')).toBeVisible();
    });
  });
}
