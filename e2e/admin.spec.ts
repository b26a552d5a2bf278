/**
 * The admin page as an operator uses it: a skill used in a chat shows up with its count and a link to the chat;
 * broken and shadowed skills dropped into the user roots show up under Problems after Rescan, with the validator's
 * own messages; a skill added while the server runs appears after Rescan. The user roots are the e2e server's
 * `SKILLCHAT_HOME` (`.e2e/home`), so fixtures are written there and removed afterwards.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { DEFAULT_LIMITS } from '../server/config';
import { loadSkill } from '../server/skills/load/skill-file';
import { ChatPage } from './chat-page';
import { screenshotPath } from './screenshot-path';

test.describe.configure({ mode: 'serial' });

const appDir = path.resolve(import.meta.dirname, '..');
const home = path.join(appDir, '.e2e', 'home');
const agentsRoot = path.join(home, '.agents', 'skills');
const skillchatRoot = path.join(home, '.skillchat', 'skills');
const VALIDATION = 'skills-system-validation';
const ADDED = 'admin-added-skill';

const fixtures = {
  brokenYaml: path.join(skillchatRoot, 'broken-yaml'),
  missingDescription: path.join(skillchatRoot, 'missing-description'),
  shadowCopy: path.join(agentsRoot, VALIDATION),
  added: path.join(skillchatRoot, ADDED),
};

function writeFile(file: string, content: string | Buffer) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

function removeFixtures() {
  for (const dir of Object.values(fixtures)) fs.rmSync(dir, { recursive: true, force: true });
}

async function rescanViaApi(request: APIRequestContext, baseURL: string | undefined) {
  const response = await request.post('/api/admin/rescan', { headers: { origin: baseURL ?? '' } });
  expect(response.status()).toBe(200);
}

async function activationCount(request: APIRequestContext, skill: string): Promise<number> {
  const response = await request.get('/api/admin/overview');
  expect(response.status()).toBe(200);
  const overview = (await response.json()) as { activations: { bySkill: Array<{ skillName: string; count: number }> } };
  return overview.activations.bySkill.find((c) => c.skillName === skill)?.count ?? 0;
}

/** Clicks Rescan and waits for the page to show a newer scan. */
async function rescan(page: Page) {
  const scannedAt = page.getByTestId('scanned-at');
  const before = await scannedAt.getAttribute('datetime');
  await page.getByTestId('rescan-button').click();
  await expect(scannedAt).not.toHaveAttribute('datetime', before ?? '');
  await expect(page.getByTestId('rescan-button')).toBeEnabled();
}

function skillRow(page: Page, name: string) {
  return page.locator(`[data-testid="skill-row"][data-skill="${name}"]`);
}

test.beforeAll(() => removeFixtures());
test.afterAll(async ({ request, baseURL }) => {
  removeFixtures();
  // Later specs share this server: give them back the bundled skill set.
  await rescanViaApi(request, baseURL);
});

test('a skill invoked in a chat shows up with its count and a link to the chat', async ({ page, request }) => {
  const before = await activationCount(request, VALIDATION);

  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.pickSkill('skills-sys', VALIDATION);
  await chat.typeAndSend('check the skills system');
  const chatId = await chat.chatId();
  await chat.waitForAnswer(1);
  const title = ((await chat.title.textContent()) ?? '').trim();

  await page.goto('/admin');
  await expect(page.getByTestId('admin-page')).toBeVisible();
  const row = skillRow(page, VALIDATION);
  await expect(row.getByTestId('skill-activations')).toHaveText(String(before + 1));
  await expect(row.getByTestId('skill-status')).toHaveText('ok');
  await expect(row.getByTestId('skill-last-activated')).not.toHaveText('never');

  const link = page.locator(`[data-testid="activation-chat-link"][href="/chat/${chatId}"]`);
  await expect(link).toHaveCount(1);
  await expect(link).toHaveText(title);
  const logRow = page.getByTestId('activation-row').filter({ has: link });
  await expect(logRow).toHaveAttribute('data-skill', VALIDATION);
  await expect(logRow.getByTestId('activation-how')).toContainText('explicit');
  await expect(
    page.locator(`[data-testid="activation-count-row"][data-skill="${VALIDATION}"]`).getByTestId('activation-count'),
  ).toHaveText(String(before + 1));

  await link.click();
  await expect(page).toHaveURL(new RegExp(`/chat/${chatId}$`));
});

test('broken and shadowed skills appear under Problems after Rescan, with the validator’s messages', async ({
  page,
}) => {
  writeFile(
    path.join(fixtures.brokenYaml, 'SKILL.md'),
    '---\nname: broken-yaml\ndescription: [this flow sequence is never closed\n---\n# Broken\n',
  );
  writeFile(
    path.join(fixtures.missingDescription, 'SKILL.md'),
    '---\nname: missing-description\n---\n# No description\n',
  );
  fs.cpSync(path.join(appDir, '.skills', VALIDATION), fixtures.shadowCopy, { recursive: true });

  // What the validator says about each broken folder, from the engine itself: the page must show exactly that.
  const expected = new Map<string, Awaited<ReturnType<typeof loadSkill>>['diagnostics']>();
  for (const dir of [fixtures.brokenYaml, fixtures.missingDescription]) {
    const { skill, diagnostics } = await loadSkill(dir, {
      root: skillchatRoot,
      scope: 'user',
      relDir: path.basename(dir),
      limits: DEFAULT_LIMITS,
    });
    expect(skill).toBeNull();
    expect(diagnostics.some((d) => d.severity === 'error')).toBe(true);
    expected.set(path.basename(dir), diagnostics);
  }

  await page.goto('/admin');
  await rescan(page);

  const problems = page.getByTestId('problems');
  for (const [folder, diagnostics] of expected) {
    for (const d of diagnostics) {
      const row = problems.locator(
        `[data-testid="problem-row"][data-skill-path="${folder}"][data-code="${d.code}"][data-severity="${d.severity}"]`,
      );
      await expect(row.getByTestId('problem-message')).toHaveText(d.message);
      if (d.hint) await expect(row.getByTestId('problem-hint')).toContainText(d.hint);
    }
    await expect(page.locator(`[data-testid="not-loaded-row"][data-skill="${folder}"]`)).toBeVisible();
    await expect(skillRow(page, folder).getByTestId('skill-status')).toHaveText('not loaded');
  }

  const collision = page.locator(`[data-testid="collision-row"][data-skill="${VALIDATION}"]`);
  await expect(collision.getByTestId('collision-winner')).toHaveText(`.skills/${VALIDATION}`);
  await expect(collision.getByTestId('collision-shadowed')).toHaveText(`.e2e/home/.agents/skills/${VALIDATION}`);
  const shadowProblem = problems.locator(
    `[data-testid="problem-row"][data-code="name-collision"][data-skill-path="${VALIDATION}"]`,
  );
  await expect(shadowProblem.getByTestId('problem-message')).toContainText('is shadowed by');
  // The winner is still the loaded skill, and no absolute path reaches the page by default.
  await expect(skillRow(page, VALIDATION).getByTestId('skill-status')).toHaveText('ok');
  expect(await page.content()).not.toContain(appDir);
});

test('Rescan picks up a skill added while the server runs; its page shows instructions and files', async ({ page }) => {
  await page.goto('/admin');
  await expect(skillRow(page, ADDED)).toHaveCount(0);

  writeFile(
    path.join(fixtures.added, 'SKILL.md'),
    `---\nname: ${ADDED}\ndescription: Added while the server runs, to test Rescan. Use when testing the admin page.\n---\n# Added skill\n\nSee [the guide](references/guide.md).\n`,
  );
  writeFile(path.join(fixtures.added, 'references', 'guide.md'), '# Guide\n');
  writeFile(path.join(fixtures.added, 'assets', 'logo.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d]));
  await rescan(page);

  const row = skillRow(page, ADDED);
  await expect(row.getByTestId('skill-status')).toHaveText('ok');
  await expect(row.getByTestId('skill-activations')).toHaveText('0');
  // Source: the user root it was found in (`.e2e/home` is this server's SKILLCHAT_HOME, inside the app folder).
  await expect(row.getByTestId('skill-source')).toHaveText(/^\.e2e\/home\/\.skillchat\/skills\s*user$/);
  await expect(page.getByTestId('catalog-text')).toContainText(`"name":"${ADDED}"`);

  // Filter narrows the table to the match.
  await page.getByTestId('skills-filter').fill('added while');
  await expect(page.getByTestId('skill-row')).toHaveCount(1);
  await page.getByTestId('skills-filter').fill('');

  await row.getByTestId('skill-link').click();
  await expect(page).toHaveURL(new RegExp(`/admin/skills/${ADDED}$`));
  const detail = page.getByTestId('skill-detail');
  await expect(detail.getByTestId('skill-frontmatter')).toContainText(`name: ${ADDED}`);
  await expect(detail.getByTestId('skill-instructions').getByRole('heading', { name: 'Added skill' })).toBeVisible();
  const binary = detail.locator('[data-testid="skill-file-row"][data-path="assets/logo.bin"]');
  await expect(binary.getByTestId('skill-file-binary')).toBeVisible();
  await expect(binary).toContainText('8 B');
  const text = detail.locator('[data-testid="skill-file-row"][data-path="references/guide.md"]');
  await expect(text.getByTestId('skill-file-binary')).toHaveCount(0);
});

test('screenshots of /admin, light and dark', async ({ page }) => {
  await page.goto('/admin');
  await expect(page.getByTestId('admin-page')).toBeVisible();
  await page.screenshot({ path: screenshotPath('admin.png'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('admin-dark.png'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(`/admin/skills/${VALIDATION}`);
  await expect(page.getByTestId('skill-detail')).toBeVisible();
  await page.screenshot({ path: screenshotPath('admin-skill.png'), fullPage: true });
});
