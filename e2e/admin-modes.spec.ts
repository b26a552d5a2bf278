/**
 * Per-skill modes set on /admin, as an operator does it: turning a skill `off` hides it from the slash menu and from
 * the catalog the model receives; `manual` brings it back to the slash menu but not to the catalog; "config default"
 * lists it again. The e2e server has no mode rules in its config, so the bundled skills start as `auto`.
 */
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { ChatPage } from './chat-page';
import { screenshotPath } from './screenshot-path';

test.describe.configure({ mode: 'serial' });

const SKILL = 'csv-to-json';
const ENTRY = `"name":"${SKILL}"`;

async function resetMode(request: APIRequestContext, baseURL: string | undefined) {
  const response = await request.post(`/api/admin/skills/${SKILL}/mode`, {
    headers: { origin: baseURL ?? '' },
    data: { mode: null },
  });
  expect(response.status()).toBe(200);
}

function listedText(n: number): RegExp {
  return new RegExp(`^${n} skills? listed$`);
}

function skillRow(page: Page) {
  return page.locator(`[data-testid="skill-row"][data-skill="${SKILL}"]`);
}

function modeCell(page: Page) {
  return skillRow(page).getByTestId('skill-mode');
}

/** Picks a mode in the skill's row and waits until the page shows it saved. */
async function setMode(page: Page, value: string, expectedMode: string, expectedSource: string) {
  const cell = modeCell(page);
  await cell.getByTestId('mode-select').selectOption(value);
  await expect(cell).toHaveAttribute('data-mode', expectedMode);
  await expect(cell).toHaveAttribute('data-source', expectedSource);
  await expect(cell.getByTestId('mode-select')).toBeEnabled();
}

/** Types `/csv` in a new chat and waits for the menu's answer; returns the option for the skill. */
async function slashOption(page: Page) {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.input.click();
  await chat.input.pressSequentially('/csv');
  await expect(chat.slashMenu).toBeVisible();
  // The menu has answered once it stops looking: then an absent option is really absent.
  await expect(chat.slashMenu.getByText('Looking for skills…')).toHaveCount(0);
  return page.getByTestId(`slash-option-${SKILL}`);
}

test.beforeAll(async ({ request, baseURL }) => resetMode(request, baseURL));
// Later specs share this server: give them the skill back as the config has it.
test.afterAll(async ({ request, baseURL }) => resetMode(request, baseURL));

test('off hides a skill from the slash menu and the catalog; manual brings back only /name', async ({ page }) => {
  await page.goto('/admin');
  const catalog = page.getByTestId('catalog-text');
  const cell = modeCell(page);
  await expect(cell).toHaveAttribute('data-mode', 'auto');
  await expect(cell).toHaveAttribute('data-source', 'default');
  await expect(cell.getByTestId('mode-select')).toHaveAccessibleName(`Mode of ${SKILL}`);
  await expect(catalog).toContainText(ENTRY);
  const listedBefore = Number.parseInt((await page.getByTestId('catalog-listed').textContent()) ?? '', 10);

  await setMode(page, 'off', 'off', 'override');
  await expect(cell.getByTestId('skill-mode-source')).toHaveText('invisible, set on this page');
  await expect(catalog).not.toContainText(ENTRY);
  await expect(page.getByTestId('catalog-listed')).toHaveText(listedText(listedBefore - 1));
  await expect(page.getByTestId('catalog-hidden')).toHaveText('1 not offered');
  await expect(skillRow(page).getByTestId('skill-tokens')).toHaveAttribute('data-in-catalog', 'false');
  await expect(await slashOption(page)).toHaveCount(0);

  await page.goto('/admin');
  await expect(cell).toHaveAttribute('data-mode', 'off');
  await setMode(page, 'manual', 'manual', 'override');
  await expect(catalog).not.toContainText(ENTRY);
  await expect(await slashOption(page)).toBeVisible();

  await page.goto('/admin');
  await setMode(page, '', 'auto', 'default');
  await expect(cell.getByTestId('mode-select')).toHaveValue('');
  await expect(catalog).toContainText(ENTRY);
  await expect(page.getByTestId('catalog-listed')).toHaveText(listedText(listedBefore));
  await expect(await slashOption(page)).toBeVisible();
});

test('screenshot of the mode column and the catalog', async ({ page }) => {
  await page.goto('/admin');
  await setMode(page, 'search', 'search', 'override');
  await expect(page.getByTestId('catalog-not-listed')).toHaveText('1 not listed');
  // No focus ring on the select just used: the picture is of the page at rest.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.screenshot({
    path: screenshotPath('admin-modes.png'),
    fullPage: true,
  });
});
