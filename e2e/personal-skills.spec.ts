/**
 * Personal skills on an exposed server (`next start -H 0.0.0.0`, its own database): a member uploads a skill's
 * folder on /settings and uses it with `/its-name` in a chat (the offline model); another member sees it nowhere
 * (slash menu, the skills API, a chat) and cannot remove it; a shared skill's name is refused; the admin installs a
 * folder on /admin and sees each person's count of their own skills.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, expect, type Page, test } from '@playwright/test';
import { ChatPage } from './chat-page';
import { freePort, type OwnServer, startOwnServer } from './own-server';
import { screenshotPath } from './screenshot-path';

test.describe.configure({ mode: 'serial' });

const ADMIN = { email: 'ada@example.test', password: 'ada-password-1', name: 'Ada' };
const ALICE = { email: 'alice@example.test', password: 'alice-password-1' };
const BOB = { email: 'bob@example.test', password: 'bob-password-1' };

let server: OwnServer;
let tmp: string;

function writeSkill(dir: string, name: string, files: Record<string, string> = {}) {
  const all = { 'SKILL.md': `---\nname: ${name}\ndescription: Plans ${name} things.\n---\n# ${name}\n`, ...files };
  for (const [rel, content] of Object.entries(all)) {
    fs.mkdirSync(path.dirname(path.join(dir, name, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, name, rel), content);
  }
  return path.join(dir, name);
}

test.beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-personal-skills-')));
  fs.mkdirSync(path.join(tmp, 'home'));
  writeSkill(path.join(tmp, 'shared'), 'team-report');
  writeSkill(path.join(tmp, 'uploads'), 'trip-planner', { 'references/packing.md': '# Packing\n' });
  writeSkill(path.join(tmp, 'uploads', 'clash'), 'team-report');
  writeSkill(path.join(tmp, 'uploads'), 'admin-folder');
  server = await startOwnServer(
    await freePort(),
    {
      SKILLCHAT_DB: path.join(tmp, 'personal.db'),
      SKILLCHAT_HOME: path.join(tmp, 'home'),
      SKILLCHAT_SKILL_ROOTS: path.join(tmp, 'shared'),
    },
    { bind: '0.0.0.0' },
  );
});

test.afterAll(async () => {
  await server?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function signedIn(browser: Browser, who: { email: string; password: string }): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.origin });
  const page = await context.newPage();
  await page.goto('/login');
  await page.getByTestId('login-email').fill(who.email);
  await page.getByTestId('login-password').fill(who.password);
  await page.getByTestId('login-submit').click();
  await expect(page).toHaveURL(/\/(admin)?$/);
  return page;
}

test('the admin is set up and adds two members', async ({ browser, request }) => {
  const setup = /setup token \(valid once\): (\S+)/.exec(server.output());
  expect(setup).not.toBeNull();
  const headers = { origin: server.origin };
  const created = await request.post(`${server.origin}/api/setup`, { headers, data: { token: setup![1], ...ADMIN } });
  expect(created.status()).toBe(201);
  const page = await signedIn(browser, ADMIN);
  for (const member of [ALICE, BOB]) {
    const made = await page.request.post('/api/admin/users', { headers, data: { ...member, role: 'member' } });
    expect(made.status()).toBe(201);
  }
  await page.context().close();
});

test('a member uploads a folder skill on /settings and uses /its-name in a chat', async ({ browser }) => {
  const page = await signedIn(browser, ALICE);
  await page.goto('/settings');
  const mine = page.getByTestId('personal-skills');
  await expect(mine.getByTestId('no-personal-skills')).toBeVisible();
  await mine.getByTestId('install-folder').setInputFiles(path.join(tmp, 'uploads', 'trip-planner'));
  await mine.getByTestId('install-folder-submit').click();
  await expect(mine.getByTestId('install-result')).toHaveAttribute('data-skill', 'trip-planner');
  await expect(mine.locator('[data-testid="personal-skill"][data-name="trip-planner"]')).toBeVisible();

  // A shared skill's name is refused, saying why.
  await mine.getByTestId('install-folder').setInputFiles(path.join(tmp, 'uploads', 'clash', 'team-report'));
  await mine.getByTestId('install-folder-submit').click();
  await expect(mine.getByTestId('install-errors')).toContainText(
    'A shared skill named "team-report" is on this server',
  );
  await mine.screenshot({ path: screenshotPath('settings-personal-skills.png') });

  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.pickSkill('trip', 'trip-planner');
  await chat.typeAndSend('plan a weekend');
  await chat.waitForAnswer(1);
  await expect(chat.chip('trip-planner')).toBeVisible();
  await expect(chat.allToolCards(chat.lastAnswer()).first()).toHaveAttribute(
    'data-testid',
    'tool-card-skills.activate',
  );
  await page.context().close();
});

test('another member sees it nowhere and cannot remove it', async ({ browser }) => {
  const page = await signedIn(browser, BOB);
  const listed = await page.request.get('/api/skills?q=trip');
  expect(((await listed.json()) as { skills: { name: string }[] }).skills.map((s) => s.name)).not.toContain(
    'trip-planner',
  );
  const all = await page.request.get('/api/skills');
  expect(((await all.json()) as { skills: { name: string }[] }).skills.map((s) => s.name)).toEqual(['team-report']);
  const remove = await page.request.delete('/api/me/personal-skills/trip-planner', {
    headers: { origin: server.origin },
  });
  expect(remove.status()).toBe(404);

  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.input.pressSequentially('/trip');
  await expect(page.getByTestId('slash-option-trip-planner')).toHaveCount(0);
  await chat.input.fill('');
  await chat.send('/trip-planner plan a weekend');
  await chat.waitForAnswer(1);
  await expect(chat.chip('trip-planner')).toHaveCount(0);
  expect(await chat.answerText()).not.toContain('Plans trip-planner things');
  await page.goto('/settings');
  await expect(page.getByTestId('no-personal-skills')).toBeVisible();
  await page.context().close();
});

test('the admin installs a folder on /admin and sees each person’s count', async ({ browser }) => {
  const page = await signedIn(browser, ADMIN);
  await page.goto('/admin#install');
  const form = page.getByTestId('install-skill');
  await form.getByTestId('install-folder').setInputFiles(path.join(tmp, 'uploads', 'admin-folder'));
  await form.getByTestId('install-folder-submit').click();
  await expect(form.getByTestId('install-result')).toHaveAttribute('data-skill', 'admin-folder');
  await expect(page.getByTestId('personal-skills-setting')).toContainText('1 skill installed by 1 person');
  await expect(form.getByTestId('install-folder-submit')).toHaveText('Install folder');
  await page.locator('#install').screenshot({ path: screenshotPath('admin-install-folder.png') });
  await page.reload();
  const alice = page.locator(`[data-testid="user-row"][data-email="${ALICE.email}"]`);
  await expect(alice.getByTestId('user-personal-skills')).toHaveText('1');
  await expect(
    page.locator(`[data-testid="user-row"][data-email="${BOB.email}"]`).getByTestId('user-personal-skills'),
  ).toHaveText('0');
  await page.locator('#users').screenshot({ path: screenshotPath('admin-users-personal-skills.png') });
  // Everyone has the admin's install.
  expect(fs.existsSync(path.join(tmp, 'shared', 'admin-folder', 'SKILL.md'))).toBe(true);
  await page.context().close();
});

test('the member removes their skill on /settings', async ({ browser }) => {
  const page = await signedIn(browser, ALICE);
  await page.goto('/settings');
  const row = page.locator('[data-testid="personal-skill"][data-name="trip-planner"]');
  await row.getByTestId('personal-skill-remove').click();
  await expect(row).toHaveCount(0);
  await expect(page.getByTestId('no-personal-skills')).toBeVisible();
  await page.context().close();
});
