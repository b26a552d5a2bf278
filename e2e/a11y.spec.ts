/**
 * axe-core on the pages a person meets: the chat (with an answer), an open slash menu and its skills dialog, an approval card (its own
 * server with a skill under `ask`), /admin and a skill page, and the phone layout with its drawer. Serious and critical violations fail the test; the
 * report lists each rule with the elements it found, so a failure says what to fix.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { ChatPage } from './chat-page';
import { type OwnServer, startOwnServer } from './own-server';

const appDir = path.resolve(import.meta.dirname, '..');
const ASK_PORT = Number(process.env.E2E_A11Y_PORT ?? 3231);
const ASK_SKILL = 'skills-system-validation';

/** Serious and critical violations on the page as it is now, one line per rule with the offending selectors. */
async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`${scheme} colours`, () => {
    test.use({ colorScheme: scheme });

    test('the chat with an answer has no serious violation', async ({ page }) => {
      const chat = new ChatPage(page);
      await chat.openNewChat();
      expect(await seriousViolations(page)).toEqual([]);
      await chat.send('hello, how are you?');
      await chat.waitForAnswer(1);
      expect(await seriousViolations(page)).toEqual([]);
    });

    test('an open slash menu has no serious violation', async ({ page }) => {
      const chat = new ChatPage(page);
      await chat.openNewChat();
      await chat.input.pressSequentially('/');
      await expect(chat.slashMenu).toBeVisible();
      await expect(chat.slashMenu.getByRole('option').first()).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
      // "Manage skills…": the dialog with one switch per skill.
      await page.getByTestId('slash-settings').click();
      await expect(page.getByTestId('skill-prefs').getByRole('switch').first()).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
    });

    test('/admin and a skill page have no serious violation', async ({ page }) => {
      await page.goto('/admin');
      await expect(page.getByTestId('admin-page')).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
      await page.goto(`/admin/skills/${ASK_SKILL}`);
      await expect(page.getByRole('banner').getByRole('heading', { level: 1 })).toContainText(ASK_SKILL);
      expect(await seriousViolations(page)).toEqual([]);
    });
  });
}

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the chat with the drawer closed and open has no serious violation', async ({ page }) => {
    const chat = new ChatPage(page);
    await chat.openNewChat();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByTestId('drawer-toggle').click();
    await expect(page.getByTestId('sidebar')).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });
});

test.describe('approval card', () => {
  let server: OwnServer;
  let tmp: string;

  test.beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-a11y-'));
    const config = path.join(tmp, 'skillchat.config.json');
    fs.writeFileSync(config, JSON.stringify({ permissions: { rules: { [ASK_SKILL]: 'ask' } } }));
    fs.mkdirSync(path.join(tmp, 'home'));
    server = await startOwnServer(ASK_PORT, {
      SKILLCHAT_DB: path.join(tmp, 'test.db'),
      SKILLCHAT_HOME: path.join(tmp, 'home'),
      SKILLCHAT_SKILL_ROOTS: path.join(appDir, '.skills'),
      SKILLCHAT_CONFIG: config,
      SKILLCHAT_OFFLINE_CHUNK_DELAY_MS: '0',
    });
  });

  test.afterAll(async () => {
    await server?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('a card waiting for consent has no serious violation', async ({ page }) => {
    const chat = new ChatPage(page);
    await page.goto(server.origin);
    await expect(chat.input).toBeVisible();
    await chat.send('please validate that the skills system works');
    const card = chat.toolCards('skills.activate', chat.lastAnswer());
    await expect(card).toHaveAttribute('data-state', 'waiting');
    await chat.waitForAnswer(1);
    await expect(page.getByTestId('answer-announcer')).toContainText('waits for your approval');
    expect(await seriousViolations(page)).toEqual([]);
  });
});
