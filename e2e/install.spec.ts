/**
 * Installing skills on /admin as an operator does: upload a .skill archive, see it installed, and use it in a new
 * chat straight away (no restart); a skill with hidden tag characters installs with a warning that names where they
 * are; a hostile archive is refused with every reason. Installs go to the e2e server's `~/.skillchat/skills`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { makeZip, renameEntry, skillMd } from '../test/install/test-zip';
import { ChatPage } from './chat-page';

test.describe.configure({ mode: 'serial' });

const installRoot = path.resolve(import.meta.dirname, '..', '.e2e', 'home', '.skillchat', 'skills');
const INSTALLED = 'e2e-installed-greeter';
const HIDDEN = 'e2e-hidden-text';

const tag = (text: string) => [...text].map((c) => String.fromCodePoint(0xe0000 + (c.codePointAt(0) ?? 0))).join('');

test.afterAll(async ({ request, baseURL }) => {
  for (const name of [INSTALLED, HIDDEN]) fs.rmSync(path.join(installRoot, name), { recursive: true, force: true });
  await request.post('/api/admin/rescan', { headers: { origin: baseURL ?? '' } });
});

async function upload(page: Page, fileName: string, buffer: Buffer) {
  await page.getByTestId('install-file').setInputFiles({ name: fileName, mimeType: 'application/zip', buffer });
  await page.getByTestId('install-submit').click();
}

test('an archive installed on /admin is in the slash menu and activates in a chat, without a restart', async ({
  page,
}) => {
  const archive = await makeZip([
    {
      name: `${INSTALLED}/SKILL.md`,
      content: skillMd(INSTALLED, 'Greets people warmly by name when asked to say hello.', '', 'Greet $ARGUMENTS.\n'),
    },
    { name: `${INSTALLED}/references/tone.md`, content: 'Warm and short.\n' },
  ]);
  await page.goto('/admin');
  await upload(page, `${INSTALLED}.skill`, archive);
  await expect(page.getByTestId('install-result')).toContainText(`Installed ${INSTALLED}`);
  await expect(page.locator(`[data-testid="installed-skill"][data-skill="${INSTALLED}"]`)).toBeVisible();

  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.pickSkill('e2e-installed', INSTALLED, 'mouse');
  await chat.typeAndSend('say hello to Ada');
  await chat.chatId();
  const activate = chat.toolCards('skills.activate', chat.lastAnswer());
  await expect(activate).toHaveAttribute('data-state', 'done');
  await expect(activate).toContainText(INSTALLED);
  await chat.waitForAnswer(1);
  await expect(chat.chip(INSTALLED)).toBeVisible();

  // Installing the same name again is refused, and offers what an update would change.
  await page.goto('/admin');
  await upload(page, `${INSTALLED}.skill`, archive);
  await expect(page.locator('[data-testid="install-problem"][data-code="already-installed"]')).toBeVisible();
  await page.getByTestId('install-preview').click();
  await expect(page.getByTestId('install-diff')).toContainText('SKILL.md unchanged');

  // Export gives the .skill archive back; Uninstall removes it from the install root.
  const exported = await page.request.get(`/api/admin/skills/${INSTALLED}/export`);
  expect(exported.status()).toBe(200);
  expect(exported.headers()['content-type']).toBe('application/zip');
  expect((await exported.body()).subarray(0, 2).toString()).toBe('PK');
  const uninstall = page
    .locator(`[data-testid="installed-skill"][data-skill="${INSTALLED}"]`)
    .getByTestId('uninstall-button');
  // The confirm opens on Cancel; Esc closes it and focus is back on the button; then confirm for real.
  await uninstall.click();
  await expect(page.getByTestId('uninstall-cancel')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('uninstall-dialog')).toHaveCount(0);
  await expect(uninstall).toBeFocused();
  await uninstall.click();
  await page.getByTestId('uninstall-confirm').click();
  await expect(page.locator(`[data-testid="installed-skill"][data-skill="${INSTALLED}"]`)).toHaveCount(0);
  expect(fs.existsSync(path.join(installRoot, INSTALLED))).toBe(false);
});

test('hidden tag characters install with a warning naming line and column, shown under Problems', async ({ page }) => {
  const archive = await makeZip([
    { name: `${HIDDEN}/SKILL.md`, content: skillMd(HIDDEN, 'Summarises text.', '', `Summarise.${tag('leak')}\n`) },
  ]);
  await page.goto('/admin');
  await upload(page, `${HIDDEN}.skill`, archive);
  await expect(page.getByTestId('install-result')).toContainText(`Installed ${HIDDEN}`);
  const warning = page.locator('[data-testid="install-diagnostic"][data-severity="warning"]');
  await expect(warning).toContainText('hidden-text');
  await expect(warning).toContainText('line 6, column 11');
  await page.reload();
  await expect(page.getByTestId('problems')).toContainText('Unicode tag character U+E006C at line 6, column 11');
});

test('a hostile archive is refused with every reason and nothing is installed', async ({ page }) => {
  const zip = await makeZip([
    { name: 'hostile/SKILL.md', content: skillMd('hostile') },
    { name: 'hostile/link', content: '/etc/passwd', mode: 0o120777 },
    { name: 'hostile/xx/evil', content: 'x' },
  ]);
  await page.goto('/admin');
  await upload(page, 'hostile.zip', renameEntry(zip, 'xx/evil', '../evil'));
  const problems = page.getByTestId('install-problem');
  await expect(problems).toHaveCount(2);
  await expect(page.locator('[data-testid="install-problem"][data-code="symlink"]')).toBeVisible();
  await expect(page.locator('[data-testid="install-problem"][data-code="parent-path"]')).toBeVisible();
  expect(fs.existsSync(path.join(installRoot, 'hostile'))).toBe(false);
});
