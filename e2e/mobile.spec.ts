/**
 * A phone (390x844): the chat list is a drawer behind a menu button, closed at first; opening it moves focus in, Esc
 * closes it and gives focus back to the button, choosing a chat closes it; neither the chat nor /admin scrolls
 * sideways; a touch screen shows no keyboard hints. Pictures of the drawer closed and open for the README.
 */
import { expect, type Page, test } from '@playwright/test';
import { ChatPage } from './chat-page';
import { screenshotPath } from './screenshot-path';

test.use({ viewport: { width: 390, height: 844 } });

async function pageScrollsSideways(page: Page): Promise<{ scrollWidth: number; innerWidth: number }> {
  return page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
}

async function expectNoSidewaysScroll(page: Page) {
  const { scrollWidth, innerWidth } = await pageScrollsSideways(page);
  expect(scrollWidth, `page is ${scrollWidth} px wide in a ${innerWidth} px window`).toBeLessThanOrEqual(innerWidth);
}

/** Two chats, so choosing one from the drawer is a real navigation. Returns their ids, oldest first. */
async function twoChats(chat: ChatPage): Promise<[string, string]> {
  await chat.openNewChat();
  await chat.send('first chat on a phone');
  await chat.waitForAnswer(1);
  const first = await chat.chatId();
  await chat.openNewChat();
  await chat.send('second chat on a phone');
  await chat.waitForAnswer(1);
  const second = await chat.chatId();
  return [first, second];
}

test('the drawer: closed at first, opens with focus inside, Esc closes, choosing a chat closes', async ({ page }) => {
  const chat = new ChatPage(page);
  const [first, second] = await twoChats(chat);
  const toggle = page.getByTestId('drawer-toggle');
  const drawer = page.getByTestId('sidebar');

  await expect(toggle).toBeVisible();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(drawer).toBeHidden();
  // The chat has the whole width: the list does not take a third of the screen any more.
  const box = await page.locator('main').boundingBox();
  expect(box?.width).toBe(390);
  await expectNoSidewaysScroll(page);
  await page.screenshot({ path: screenshotPath('mobile-drawer-closed.png') });

  await toggle.click();
  await expect(drawer).toBeVisible();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  // Focus starts on the chat being read.
  await expect(chat.chatItem(second).getByTestId('chat-link')).toBeFocused();
  await expect(page.getByTestId('drawer-backdrop')).toBeVisible();
  await page.waitForTimeout(250); // the slide-in, so the picture shows the drawer where it rests
  await page.screenshot({ path: screenshotPath('mobile-drawer-open.png') });

  await page.keyboard.press('Escape');
  await expect(drawer).toBeHidden();
  await expect(toggle).toBeFocused();

  await toggle.click();
  await expect(drawer).toBeVisible();
  await chat.chatItem(first).getByTestId('chat-link').click();
  await expect(page).toHaveURL(new RegExp(`/chat/${first}$`));
  await expect(drawer).toBeHidden();
  await expect(chat.userMessages.first()).toContainText('first chat on a phone');
});

test('the backdrop, New chat and tabbing out close the drawer too', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  const toggle = page.getByTestId('drawer-toggle');
  const drawer = page.getByTestId('sidebar');
  await toggle.click();
  await expect(drawer).toBeVisible();
  await page.getByTestId('drawer-backdrop').click({ position: { x: 370, y: 400 } });
  await expect(drawer).toBeHidden();
  await toggle.click();
  await page.getByTestId('new-chat-button').click();
  await expect(drawer).toBeHidden();
  // Tab past its last link leaves the drawer, which closes rather than hiding what has focus.
  await toggle.click();
  await page.getByTestId('admin-link').focus();
  await page.keyboard.press('Tab');
  await expect(drawer).toBeHidden();
});

test("the home page's skill starters sit inside the window", async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  const starters = page.getByTestId('starters').getByRole('button');
  expect(await starters.count()).toBeGreaterThan(0);
  for (const starter of await starters.all()) {
    const box = (await starter.boundingBox())!;
    expect(box.x, 'a starter starts left of the window').toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, 'a starter runs off the window').toBeLessThanOrEqual(390);
  }
  await expectNoSidewaysScroll(page);
});

test('neither the chat nor /admin scrolls sideways', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.send('a long word: supercalifragilisticexpialidocious-supercalifragilisticexpialidocious-and-more');
  await chat.waitForAnswer(1);
  await expectNoSidewaysScroll(page);

  await page.goto('/admin');
  await expect(page.getByTestId('admin-page')).toBeVisible();
  await expectNoSidewaysScroll(page);
  // Wide tables scroll inside their own frame instead.
  const wraps = page.locator('.table-wrap');
  expect(await wraps.count()).toBeGreaterThan(0);
  for (const wrap of await wraps.all()) {
    const width = await wrap.evaluate((el) => el.getBoundingClientRect().right);
    expect(width).toBeLessThanOrEqual(390);
  }

  await page.goto('/admin/skills/skills-system-validation');
  await expectNoSidewaysScroll(page);
});

/** Whether the element shows all of its text: not cut by an ellipsis, and inside the window. */
async function showsWholly(page: Page, testId: string) {
  const el = page.getByTestId(testId);
  await expect(el).toBeVisible();
  const fit = await el.evaluate((node) => ({
    cut: node.scrollWidth > node.clientWidth,
    right: node.getBoundingClientRect().right,
    width: node.getBoundingClientRect().width,
  }));
  expect(fit.cut, `${testId} is cut short`).toBe(false);
  expect(fit.right, `${testId} runs off the window`).toBeLessThanOrEqual(390);
  return fit;
}

test("a chat's header shows its title, and the export links each on one line", async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.send('Plan the quarterly budget review');
  await chat.waitForAnswer(1);
  await expect(chat.title).toHaveText('Plan the quarterly budget review');
  const title = await showsWholly(page, 'chat-title');
  expect(title.width).toBeGreaterThan(200);
  // "Export chat as .md" wrapped over three lines beside the picker: now each link is one line high, side by side.
  const md = await page.getByTestId('export-md').boundingBox();
  const json = await page.getByTestId('export-json').boundingBox();
  expect(md && json).toBeTruthy();
  expect(md!.height).toBeLessThanOrEqual(json!.height + 1);
  expect(Math.abs(md!.y - json!.y)).toBeLessThanOrEqual(1);
  await expect(page.getByTestId('export-md')).toHaveAccessibleName('Export chat as .md');
  await expect(chat.modelPicker).toBeVisible();
  expect((await chat.modelPicker.boundingBox())!.x + 10).toBeLessThanOrEqual(390);
  await page.screenshot({ path: screenshotPath('mobile-chat-header.png') });

  await page.goto('/admin');
  await expect(page.getByTestId('admin-title')).toHaveText('Skills and activations');
  await showsWholly(page, 'admin-title');
  await page.screenshot({ path: screenshotPath('mobile-admin-header.png') });
});

test.describe('on a touch screen', () => {
  test.use({ hasTouch: true });

  test('keyboard hints are hidden', async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.openNewChat();
    await expect(page.locator('.composer__hint')).toBeHidden();
  });
});

test('with a mouse the keyboard hints show', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await expect(page.locator('.composer__hint')).toBeVisible();
});
