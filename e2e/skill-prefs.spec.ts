/**
 * A person switches a skill off for themselves, from "Manage skills…" at the foot of the slash menu: the
 * skill leaves their slash menu, `/name` typed by hand is refused with a message saying how to switch it back on,
 * the choice survives a reload, and switching it back on brings it back. Runs as the local person (loopback).
 */
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { ChatPage } from './chat-page';
import { screenshotPath } from './screenshot-path';

test.describe.configure({ mode: 'serial' });

const SKILL = 'commit-message';

async function switchBackOn(request: APIRequestContext, baseURL: string | undefined) {
  const response = await request.put(`/api/me/skills/${SKILL}`, {
    headers: { origin: baseURL ?? '' },
    data: { disabled: false },
  });
  expect(response.status()).toBe(200);
}

test.beforeAll(async ({ request, baseURL }) => switchBackOn(request, baseURL));
// Later specs share this server: leave the skill on.
test.afterAll(async ({ request, baseURL }) => switchBackOn(request, baseURL));

/** Types `/` in the composer and waits until the menu has answered. */
async function openMenu(chat: ChatPage) {
  await chat.input.click();
  await chat.input.fill('');
  await chat.input.pressSequentially('/');
  await expect(chat.slashMenu).toBeVisible();
  await expect(chat.slashMenu.getByText('Looking for skills…')).toHaveCount(0);
}

async function toggleInDialog(
  page: Page,
  chat: ChatPage,
  expectedAfter: 'true' | 'false',
  how: 'keyboard' | 'mouse',
  screenshot?: string,
) {
  await openMenu(chat);
  if (how === 'keyboard') {
    // "Manage skills…" is the menu's last option: up from the first one wraps to it, Enter opens it.
    await chat.input.press('ArrowUp');
    await expect(page.getByTestId('slash-settings')).toHaveAttribute('aria-selected', 'true');
    await expect(chat.input).toHaveAttribute(
      'aria-activedescendant',
      (await page.getByTestId('slash-settings').getAttribute('id')) ?? 'missing',
    );
    await chat.input.press('Enter');
  } else {
    await page.getByTestId('slash-settings').click();
  }
  const dialog = page.getByTestId('skill-prefs');
  await expect(dialog).toBeVisible();
  const toggle = dialog.getByTestId(`skill-pref-${SKILL}`);
  await expect(toggle).toHaveAttribute('role', 'switch');
  await expect(toggle).toHaveAccessibleName(`/${SKILL}`);
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-checked', expectedAfter);
  await expect(toggle).toBeEnabled();
  if (screenshot) await page.screenshot({ path: screenshotPath(screenshot) });
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(chat.input).toBeFocused();
}

test('switch a skill off: gone from the slash menu, /name refused, kept on reload; on again brings it back', async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await openMenu(chat);
  await expect(page.getByTestId(`slash-option-${SKILL}`)).toBeVisible();

  await toggleInDialog(page, chat, 'false', 'keyboard', 'skill-prefs.png');
  // The menu came back (focus is in the composer on "/") and fetched again: the skill is gone.
  await expect(chat.slashMenu).toBeVisible();
  await expect(chat.slashMenu.getByText('Looking for skills…')).toHaveCount(0);
  await expect(page.getByTestId(`slash-option-${SKILL}`)).toHaveCount(0);
  await expect(page.getByTestId('slash-option-csv-to-json')).toBeVisible();

  // Typed by hand: the server answers with the refusal, and how to switch it back on.
  await chat.input.fill(`/${SKILL} fix the typo`);
  await chat.input.press('Enter');
  await expect(chat.assistantMessages.last()).toContainText(`You switched off skill "${SKILL}"`);
  await expect(chat.assistantMessages.last()).toContainText('Manage skills');

  await page.reload();
  await openMenu(chat);
  await expect(page.getByTestId(`slash-option-${SKILL}`)).toHaveCount(0);
  await page.getByTestId('slash-settings').click();
  await expect(page.getByTestId(`skill-pref-${SKILL}`)).toHaveAttribute('aria-checked', 'false');
  await page.keyboard.press('Escape');
  await expect(chat.input).toBeFocused();

  await toggleInDialog(page, chat, 'true', 'mouse');
  await expect(chat.slashMenu.getByText('Looking for skills…')).toHaveCount(0);
  await expect(page.getByTestId(`slash-option-${SKILL}`)).toBeVisible();
});

test('the API: lists with the flag, 404 for an unknown skill, 400 for a bad body', async ({ request, baseURL }) => {
  const headers = { origin: baseURL ?? '' };
  const list = (await (await request.get('/api/me/skills')).json()) as {
    skills: { name: string; disabled: boolean }[];
  };
  expect(list.skills.find((s) => s.name === SKILL)).toMatchObject({ disabled: false });
  const unknown = await request.put('/api/me/skills/no-such-skill', { headers, data: { disabled: true } });
  expect(unknown.status()).toBe(404);
  expect(await unknown.json()).toMatchObject({ code: 'not_found:skill' });
  const bad = await request.put(`/api/me/skills/${SKILL}`, { headers, data: { disabled: 'yes' } });
  expect(bad.status()).toBe(400);
  expect(await bad.json()).toMatchObject({ code: 'bad_request:skill_pref' });
});
