/**
 * Live reload as a skill author sees it: a skill folder added, edited and removed on disk while the server runs shows
 * up in /admin and in the slash menu within seconds, with no restart and no Rescan click.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { ChatPage } from './chat-page';

test.describe.configure({ mode: 'serial' });

const appDir = path.resolve(import.meta.dirname, '..');
const root = path.join(appDir, '.e2e', 'home', '.skillchat', 'skills');
const NAME = 'live-reload-demo';
const dir = path.join(root, NAME);
const WITHIN = { timeout: 15_000, intervals: [250, 500, 1000] };

function writeSkill(description: string) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'SKILL.md'),
    `---\nname: ${NAME}\ndescription: ${description}\n---\n# Demo\n\nSteps.\n`,
  );
}

/** The description /admin shows for the skill, or null when it is not listed; reloads the page each time. */
async function adminDescription(page: Page): Promise<string | null> {
  await page.goto('/admin');
  const row = page.locator(`[data-testid="skill-row"][data-skill="${NAME}"]`);
  if ((await row.count()) === 0) return null;
  return (await row.textContent()) ?? '';
}

/** Whether typing `/live-rel` in a new chat offers the skill. */
async function inSlashMenu(page: Page): Promise<boolean> {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.input.click();
  await chat.input.pressSequentially('/live-rel');
  // The menu asks the server as the person types: let those requests settle before reading it.
  await page.waitForLoadState('networkidle');
  return page.getByTestId(`slash-option-${NAME}`).isVisible();
}

test.beforeAll(() => fs.rmSync(dir, { recursive: true, force: true }));
test.afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a skill added on disk appears in /admin and the slash menu without a restart', async ({ page }) => {
  await page.goto('/admin');
  await expect(page.locator(`[data-testid="skill-row"][data-skill="${NAME}"]`)).toHaveCount(0);
  writeSkill('Demonstrates live reload: added while the server runs.');
  await expect.poll(() => adminDescription(page), WITHIN).toContain('added while the server runs');
  await expect.poll(() => inSlashMenu(page), WITHIN).toBe(true);
});

test('an edit shows up, and a broken edit is reported instead of silently kept', async ({ page }) => {
  writeSkill('Demonstrates live reload: edited description.');
  await expect.poll(() => adminDescription(page), WITHIN).toContain('edited description');
  fs.writeFileSync(path.join(dir, 'SKILL.md'), `---\nname: ${NAME}\ndescription: [unclosed\n---\nbody\n`);
  await expect.poll(() => adminDescription(page), WITHIN).toMatch(/not loaded/i);
  await expect
    .poll(async () => {
      await page.goto('/admin');
      return page.getByTestId('problems').textContent();
    }, WITHIN)
    .toContain(NAME);
});

test('a removed skill disappears from /admin and the slash menu', async ({ page }) => {
  writeSkill('Demonstrates live reload: about to be removed.');
  await expect.poll(() => adminDescription(page), WITHIN).toContain('about to be removed');
  fs.rmSync(dir, { recursive: true, force: true });
  await expect.poll(() => adminDescription(page), WITHIN).toBeNull();
  await expect.poll(() => inSlashMenu(page), WITHIN).toBe(false);
});
