/**
 * Keyboard and screen-reader use on a desktop: the skip link, the composer as an ARIA combobox for the slash menu,
 * the live region that announces a finished answer, one tab stop per chat in the sidebar (arrows, F2 and Delete for
 * the rest), and the delete prompt (opens on Cancel, Esc closes, focus back to its opener).
 */
import { expect, type Page, test } from '@playwright/test';
import { ChatPage } from './chat-page';

async function focusedTestId(page: Page): Promise<string | null> {
  return page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null);
}

test('the skip link comes first and moves focus to the message box', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  const skip = page.getByTestId('skip-link');
  await expect(skip).not.toBeInViewport();
  // Before the sidebar's first control there is only the skip link (the menu button exists on small screens only).
  await page.getByTestId('new-chat-button').focus();
  await page.keyboard.press('Shift+Tab');
  await expect(skip).toBeFocused();
  expect(
    await page.evaluate(() => document.querySelector('a[href], button, textarea, input')?.getAttribute('data-testid')),
  ).toBe('skip-link');
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(chat.input).toBeFocused();
});

test('the composer is a combobox that points at the highlighted skill', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await expect(chat.input).toHaveAttribute('role', 'combobox');
  await expect(chat.input).toHaveAttribute('aria-expanded', 'false');
  await chat.input.pressSequentially('/');
  await expect(chat.slashMenu).toBeVisible();
  await expect(chat.input).toHaveAttribute('aria-expanded', 'true');
  const listbox = page.getByRole('listbox', { name: 'Skills' });
  await expect(chat.input).toHaveAttribute('aria-controls', (await listbox.getAttribute('id')) ?? 'missing');
  const options = listbox.getByRole('option');
  expect(await options.count()).toBeGreaterThan(1);

  const activeOption = async () => {
    const id = await chat.input.getAttribute('aria-activedescendant');
    expect(id).toBeTruthy();
    return page.locator(`[id="${id}"]`);
  };
  await expect(await activeOption()).toHaveAttribute('aria-selected', 'true');
  await expect(options.first()).toHaveAttribute('aria-selected', 'true');
  await chat.input.press('ArrowDown');
  await expect(options.nth(1)).toHaveAttribute('aria-selected', 'true');
  await expect(options.first()).toHaveAttribute('aria-selected', 'false');
  expect(await (await activeOption()).getAttribute('id')).toBe(await options.nth(1).getAttribute('id'));

  await chat.input.press('Escape');
  await expect(chat.slashMenu).toBeHidden();
  await expect(chat.input).toHaveAttribute('aria-expanded', 'false');
  await expect(chat.input).not.toHaveAttribute('aria-activedescendant', /./);
});

test('a finished answer is announced once in a polite live region', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  const region = page.getByTestId('answer-announcer');
  await expect(region).toHaveAttribute('aria-live', 'polite');
  await expect(region).toHaveText('');
  await chat.send('tell me something about live regions');
  // While it streams the region stays quiet.
  await expect(chat.stopButton).toBeVisible();
  await expect(region).toHaveText('');
  await chat.waitForAnswer(1);
  const text = await chat.answerText();
  await expect(region).toContainText('New answer:');
  await expect(region).toContainText(text.replace(/\s+/g, ' ').slice(0, 40));
});

test('one tab stop per chat: arrows, F2 and Delete reach the rest', async ({ page }) => {
  const chat = new ChatPage(page);
  const ids: string[] = [];
  for (const text of ['tab stops one', 'tab stops two']) {
    await chat.openNewChat();
    await chat.send(text);
    await chat.waitForAnswer(1);
    ids.push(await chat.chatId());
  }
  const [older, newer] = ids as [string, string];
  const newerLink = chat.chatItem(newer).getByTestId('chat-link');
  const olderLink = chat.chatItem(older).getByTestId('chat-link');

  await newerLink.focus();
  await page.keyboard.press('Tab');
  // Tab skips the chat's rename and delete buttons and lands on the next chat.
  await expect(olderLink).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(newerLink).toBeFocused();

  await page.keyboard.press('ArrowRight');
  await expect(chat.chatItem(newer).getByTestId('chat-rename-button')).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(chat.chatItem(newer).getByTestId('chat-delete-button')).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await expect(newerLink).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(olderLink).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(newerLink).toBeFocused();

  // F2 renames; Esc gives up and focus is back on the link.
  await page.keyboard.press('F2');
  const field = chat.chatItem(newer).getByTestId('chat-rename-input');
  await expect(field).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(field).toBeHidden();
  await expect(newerLink).toBeFocused();
  // Renamed with Enter: focus back on the link too.
  await page.keyboard.press('F2');
  await field.fill('Renamed by keyboard');
  await field.press('Enter');
  await expect(newerLink).toHaveText('Renamed by keyboard');
  await expect(newerLink).toBeFocused();
});

test('the delete prompt opens on Cancel, closes on Esc and gives focus back to its opener', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.send('a chat to keep');
  await chat.waitForAnswer(1);
  const id = await chat.chatId();
  const item = chat.chatItem(id);
  const deleteButton = item.getByTestId('chat-delete-button');
  const dialog = item.getByRole('alertdialog');

  await item.hover();
  await deleteButton.click();
  await expect(dialog).toBeVisible();
  await expect(dialog).toHaveAccessibleName(/Delete/);
  await expect(item.getByTestId('chat-delete-cancel')).toBeFocused();
  // Enter on the prompt as it opens is the safe choice.
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(deleteButton).toBeFocused();

  await deleteButton.press('Enter');
  await expect(item.getByTestId('chat-delete-cancel')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(deleteButton).toBeFocused();
  expect(await focusedTestId(page)).toBe('chat-delete-button');

  // From the link, the Delete key asks too; Esc returns to the link.
  await item.getByTestId('chat-link').focus();
  await page.keyboard.press('Delete');
  await expect(item.getByTestId('chat-delete-cancel')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(item.getByTestId('chat-link')).toBeFocused();
  await expect(item).toBeVisible();
});
