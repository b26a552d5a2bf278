/**
 * Accounts on an exposed server (`next start -H 0.0.0.0`, its own database, a free port): everything needs a
 * session, the first admin is created with the setup token the server prints (once), the admin creates a member on
 * /admin, the member signs in and out, and a member gets 403 on the admin page and APIs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { ChatPage } from './chat-page';
import { freePort, type OwnServer, startOwnServer } from './own-server';
import { screenshotPath } from './screenshot-path';

test.describe.configure({ mode: 'serial' });

const ADMIN = { email: 'ada@example.test', password: 'ada-password-1', name: 'Ada' };
const MEMBER = { email: 'max@example.test', password: 'max-password-1' };
const OTHER = { email: 'mia@example.test', password: 'mia-password-1' };
const FORM = path.join(import.meta.dirname, '..', '.skills', 'pdf', 'assets', 'sample-form.pdf');

let server: OwnServer;
let tmp: string;

test.beforeAll(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-accounts-')));
  fs.mkdirSync(path.join(tmp, 'home'));
  const port = process.env.E2E_ACCOUNTS_PORT ? Number(process.env.E2E_ACCOUNTS_PORT) : await freePort();
  server = await startOwnServer(
    port,
    { SKILLCHAT_DB: path.join(tmp, 'accounts.db'), SKILLCHAT_HOME: path.join(tmp, 'home') },
    { bind: '0.0.0.0' },
  );
});

test.afterAll(async () => {
  await server?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** The token from the console line `... setup token (valid once): <token>`. */
function setupToken(): string {
  const match = /setup token \(valid once\): (\S+)/.exec(server.output());
  if (!match) throw new Error(`no setup token printed:\n${server.output()}`);
  return match[1]!;
}

async function signIn(page: Page, who: { email: string; password: string }) {
  await page.getByTestId('login-email').fill(who.email);
  await page.getByTestId('login-password').fill(who.password);
  await page.getByTestId('login-submit').click();
}

async function apiAs(request: APIRequestContext, path: string) {
  return request.get(`${server.origin}${path}`, { maxRedirects: 0 });
}

test('without a session: APIs answer 401 JSON, pages go to /login, the health check stays up', async ({ request }) => {
  for (const p of ['/api/chats', '/api/models', '/api/skills', '/api/admin/overview', '/api/admin/users']) {
    const reply = await apiAs(request, p);
    expect(reply.status(), p).toBe(401);
    expect(await reply.json()).toMatchObject({ code: 'unauthorized:session', error: expect.any(String) });
  }
  const page = await apiAs(request, '/chat/abc');
  expect(page.status()).toBe(303);
  expect(page.headers().location).toBe('/login?next=%2Fchat%2Fabc');
  expect((await apiAs(request, '/')).headers().location).toBe('/login');
  expect((await apiAs(request, '/admin')).headers().location).toBe('/login?next=%2Fadmin');
  // A cookie that only looks like a session passes the proxy; the route's own check refuses it.
  const forged = await request.get(`${server.origin}/api/chats`, {
    headers: { cookie: 'skillchat.session_token=forged.value' },
  });
  expect(forged.status()).toBe(401);
  const status = await apiAs(request, '/api/status');
  expect(status.status()).toBe(200);
  expect(await status.json()).toEqual({ ok: true });
});

test('before any admin exists, the sign-in page says how to set up the first one', async ({ page }) => {
  await page.goto(`${server.origin}/login`);
  const hint = page.getByTestId('login-setup-hint');
  await expect(hint).toContainText('no admin yet');
  await expect(hint).toContainText('setup token the server printed on its console');
  await hint.getByRole('link', { name: '/setup' }).click();
  await expect(page).toHaveURL(`${server.origin}/setup`);
  await expect(page.getByTestId('setup-form')).toBeVisible();
});

test('first-run setup with the printed token works once', async ({ page }) => {
  const token = setupToken();
  await page.goto(`${server.origin}/setup`);
  await page.getByTestId('setup-token').fill('not-the-token');
  await page.getByTestId('setup-email').fill(ADMIN.email);
  await page.getByTestId('setup-name').fill(ADMIN.name);
  await page.getByTestId('setup-password').fill(ADMIN.password);
  await page.getByTestId('setup-submit').click();
  await expect(page.getByTestId('setup-error')).toContainText('setup token');
  await page.getByTestId('setup-token').fill(token);
  await page.getByTestId('setup-submit').click();
  await expect(page.getByTestId('setup-done')).toContainText('you are signed in');
  await page.getByTestId('setup-done').getByRole('link').click();
  await expect(page).toHaveURL(`${server.origin}/admin`);

  // Never again: the page says so, and the API refuses even the same token.
  await page.goto(`${server.origin}/setup`);
  await expect(page.getByTestId('setup-closed')).toBeVisible();
  const again = await page.request.post(`${server.origin}/api/setup`, {
    headers: { origin: server.origin },
    data: { token, email: 'eve@example.test', password: 'eve-password-1' },
  });
  expect(again.status()).toBe(409);
  expect(await again.json()).toMatchObject({ code: 'conflict:setup_done' });
  // And the sign-in page goes back to pointing at accounts (as anyone not signed in sees it).
  await page.context().clearCookies();
  await page.goto(`${server.origin}/login`);
  await expect(page.getByTestId('login-page')).toContainText('Use the account an admin created for you.');
  await expect(page.getByTestId('login-setup-hint')).toHaveCount(0);
});

test('the admin signs in and creates a member on /admin', async ({ page }) => {
  await page.goto(`${server.origin}/admin`);
  await expect(page).toHaveURL(`${server.origin}/login?next=%2Fadmin`);
  await page.screenshot({ path: screenshotPath('login.png') });
  await signIn(page, { email: ADMIN.email, password: 'wrong-password' });
  await expect(page.getByTestId('login-error')).toHaveText('Wrong email or password.');
  await signIn(page, ADMIN);
  await expect(page).toHaveURL(`${server.origin}/admin`);
  const users = page.getByTestId('users-section');
  await expect(users.getByTestId('user-row')).toHaveCount(1);
  await users.getByTestId('user-create-email').fill(MEMBER.email);
  await users.getByTestId('user-create-password').fill(MEMBER.password);
  await users.getByTestId('user-create-role').selectOption('member');
  await users.getByTestId('user-create-submit').click();
  const row = users.locator(`[data-testid="user-row"][data-email="${MEMBER.email}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByTestId('user-role')).toHaveValue('member');
  // The last admin cannot demote itself: the server says why.
  await users
    .locator(`[data-testid="user-row"][data-email="${ADMIN.email}"]`)
    .getByTestId('user-role')
    .selectOption('member');
  await expect(users.getByTestId('users-error')).toContainText('last enabled admin');
  await page.getByTestId('users-section').scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('admin-users.png') });
});

test('the member signs in, sees the account menu, and signs out', async ({ page }) => {
  await page.goto(`${server.origin}/`);
  await expect(page).toHaveURL(`${server.origin}/login`);
  await signIn(page, MEMBER);
  await expect(page).toHaveURL(`${server.origin}/`);
  const menu = page.getByTestId('account-menu');
  await expect(menu).toContainText(MEMBER.email);
  await expect(page.getByTestId('admin-link')).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('account-menu.png') });
  // The chat API answers with the session.
  expect((await page.request.get(`${server.origin}/api/chats`)).status()).toBe(200);

  // A member: 403 on the admin pages (the HTTP status too, not only the words) and APIs.
  for (const p of ['/admin', '/admin/skills/skills-system-validation']) {
    const denied = await page.goto(`${server.origin}${p}`);
    expect(denied?.status(), p).toBe(403);
    await expect(page.getByTestId('admin-denied')).toContainText('Admins only');
  }
  for (const p of ['/api/admin/overview', '/api/admin/users']) {
    const reply = await page.request.get(`${server.origin}${p}`);
    expect(reply.status(), p).toBe(403);
    expect(await reply.json()).toMatchObject({ code: 'forbidden:admin' });
  }
  const create = await page.request.post(`${server.origin}/api/admin/users`, {
    headers: { origin: server.origin },
    data: { email: 'eve@example.test', password: 'eve-password-1', role: 'admin' },
  });
  expect(create.status()).toBe(403);

  await page.goto(`${server.origin}/`);
  await page.getByTestId('account-menu').getByTestId('logout').click();
  await expect(page).toHaveURL(`${server.origin}/login`);
  expect((await page.request.get(`${server.origin}/api/chats`, { maxRedirects: 0 })).status()).toBe(401);
  await page.goto(`${server.origin}/`);
  await expect(page).toHaveURL(`${server.origin}/login`);
});

test("two members never see each other's chats or files", async ({ browser }) => {
  // The admin adds a second member through the admin API (the form is covered above).
  const admin = await browser.newContext();
  const adminPage = await admin.newPage();
  await adminPage.goto(`${server.origin}/login`);
  await signIn(adminPage, ADMIN);
  await expect(adminPage).toHaveURL(`${server.origin}/`);
  const created = await adminPage.request.post(`${server.origin}/api/admin/users`, {
    headers: { origin: server.origin },
    data: { ...OTHER, role: 'member' },
  });
  expect(created.status()).toBe(201);
  await admin.close();

  // Max chats and uploads a file.
  const maxContext = await browser.newContext();
  const maxPage = await maxContext.newPage();
  await maxPage.goto(`${server.origin}/login`);
  await signIn(maxPage, MEMBER);
  await expect(maxPage).toHaveURL(`${server.origin}/`);
  const max = new ChatPage(maxPage);
  await max.ready();
  await maxPage.getByTestId('file-input').setInputFiles(FORM);
  await expect(maxPage.getByTestId('composer-attachment')).toHaveAttribute('data-name', 'sample-form.pdf');
  await max.send('Quarterly plan for the lighthouse project');
  const chatId = await max.chatId();
  await max.waitForAnswer(1);
  await expect(max.chatItems).toHaveCount(1);

  // Mia sees none of it: not in her list, not by search, not by id (404, as if it did not exist).
  const miaContext = await browser.newContext();
  const miaPage = await miaContext.newPage();
  await miaPage.goto(`${server.origin}/login`);
  await signIn(miaPage, OTHER);
  await expect(miaPage).toHaveURL(`${server.origin}/`);
  const mia = new ChatPage(miaPage);
  await expect(miaPage.getByTestId('account-menu')).toContainText(OTHER.email);
  await expect(mia.chatItems).toHaveCount(0);
  const get = (p: string) => miaPage.request.get(`${server.origin}${p}`);
  expect(await (await get('/api/chats')).json()).toEqual({ chats: [] });
  expect(await (await get('/api/chats?q=lighthouse')).json()).toMatchObject({ chats: [] });
  for (const p of [
    `/api/chats/${chatId}`,
    `/api/chats/${chatId}/files`,
    `/api/chats/${chatId}/files/sample-form.pdf`,
    `/api/chats/${chatId}/export?format=json`,
  ]) {
    const reply = await get(p);
    expect(reply.status(), p).toBe(404);
    expect(await reply.json()).toMatchObject({ code: expect.stringMatching(/^not_found:/) });
  }
  const write = { headers: { origin: server.origin } };
  expect((await miaPage.request.delete(`${server.origin}/api/chats/${chatId}`, write)).status()).toBe(404);
  const rename = await miaPage.request.patch(`${server.origin}/api/chats/${chatId}`, {
    ...write,
    data: { title: 'mine now' },
  });
  expect(rename.status()).toBe(404);
  const upload = await miaPage.request.post(`${server.origin}/api/chats/${chatId}/files`, {
    ...write,
    multipart: { file: { name: 'x.txt', mimeType: 'text/plain', buffer: Buffer.from('x') } },
  });
  expect(upload.status()).toBe(404);
  const page = await miaPage.goto(`${server.origin}/chat/${chatId}`);
  expect(page?.status()).toBe(404);
  await miaContext.close();

  // Max's chat and file are untouched.
  const files = await maxPage.request.get(`${server.origin}/api/chats/${chatId}/files`);
  expect(((await files.json()) as { files: { name: string }[] }).files.map((f) => f.name)).toEqual(['sample-form.pdf']);
  const view = await maxPage.request.get(`${server.origin}/api/chats/${chatId}`);
  expect(view.status()).toBe(200);
  await maxContext.close();
});

test('the sign-in form says when an account is throttled', async ({ page }) => {
  await page.goto(`${server.origin}/login`);
  const guess = { email: 'nobody@example.test', password: 'not-a-password' };
  // 5 failures per account in 15 minutes; the 6th attempt is refused before the password is checked.
  for (let i = 0; i < 5; i++) {
    await signIn(page, guess);
    await expect(page.getByTestId('login-error')).toHaveText('Wrong email or password.');
    await expect(page.getByTestId('login-submit')).toBeEnabled();
  }
  await signIn(page, guess);
  await expect(page.getByTestId('login-error')).toContainText('Too many failed sign-ins. Try again in');
});
