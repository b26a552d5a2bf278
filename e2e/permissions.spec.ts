/**
 * Consent for skills under `ask`, as a person meets it in the browser: the activation card waits for an answer;
 * Deny, Allow and Always allow each continue the same answer; "always" holds until SKILL.md changes and can be
 * revoked on /admin; a skill's script runs in the sandbox and its output is shown exactly; /admin lists grants,
 * decisions and script runs. Runs its own `next start` with a temporary copy of `.skills` (the test edits a
 * SKILL.md) and a config that puts `skills-system-validation` under `ask`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type Locator, type Page, test } from '@playwright/test';
import { ChatPage } from './chat-page';
import { type OwnServer, startOwnServer } from './own-server';
import { screenshotPath } from './screenshot-path';

test.describe.configure({ mode: 'serial' });

const appDir = path.resolve(import.meta.dirname, '..');
const PORT = Number(process.env.E2E_PERMISSIONS_PORT ?? 3211);
const ORIGIN = `http://127.0.0.1:${PORT}`;
const SKILL = 'skills-system-validation';
const ASK = 'please validate that the skills system works';
/** Given to the copy's frontmatter so the activation card has `allowed-tools` to show. */
const ALLOWED_TOOLS = 'Bash(bash:*) Read';

test.use({ baseURL: ORIGIN });

let server: OwnServer;
let tmp: string;
let skillFile: string;
/** Chats made by the tests, by what happened in them, for the admin checks at the end. */
const chats: Record<string, string> = {};

test.beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-permissions-'));
  const roots = path.join(tmp, 'skills');
  fs.cpSync(path.join(appDir, '.skills'), roots, { recursive: true });
  skillFile = path.join(roots, SKILL, 'SKILL.md');
  const original = fs.readFileSync(skillFile, 'utf8');
  fs.writeFileSync(
    skillFile,
    original.replace(/^license: .*$/m, (line) => `${line}\nallowed-tools: ${ALLOWED_TOOLS}`),
  );
  const config = path.join(tmp, 'skillchat.config.json');
  fs.writeFileSync(config, JSON.stringify({ permissions: { rules: { [SKILL]: 'ask' } } }));
  fs.mkdirSync(path.join(tmp, 'home'));
  server = await startOwnServer(PORT, {
    SKILLCHAT_DB: path.join(tmp, 'test.db'),
    SKILLCHAT_HOME: path.join(tmp, 'home'),
    SKILLCHAT_SKILL_ROOTS: roots,
    SKILLCHAT_CONFIG: config,
    SKILLCHAT_OFFLINE_CHUNK_DELAY_MS: '0',
  });
});

test.afterAll(async () => {
  await server?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Asks in a new chat and returns the activation card of the answer. */
async function askInNewChat(chat: ChatPage): Promise<Locator> {
  await chat.openNewChat();
  await chat.send(ASK);
  return chat.toolCards('skills.activate', chat.lastAnswer());
}

/** The card waits: the three buttons, the reason, no chip, and the answer has ended (nothing runs meanwhile). */
async function expectWaiting(chat: ChatPage, card: Locator) {
  await expect(card).toHaveAttribute('data-state', 'waiting');
  for (const id of ['approval-allow', 'approval-always', 'approval-deny']) {
    await expect(card.getByTestId(id)).toBeVisible();
  }
  await expect(card.getByTestId('approval-reason')).toContainText(`"${SKILL}"`);
  await expect(card.getByTestId('approval-reason')).toContainText(`rule "${SKILL}"`);
  await chat.waitForAnswer(1);
  await expect(card.getByTestId('approval-allow')).toBeEnabled();
  await expect(chat.chip(SKILL)).toHaveCount(0);
}

async function activationCount(page: Page): Promise<number> {
  const response = await page.request.get('/api/admin/overview');
  expect(response.status()).toBe(200);
  const overview = (await response.json()) as { activations: { bySkill: Array<{ skillName: string; count: number }> } };
  return overview.activations.bySkill.find((c) => c.skillName === SKILL)?.count ?? 0;
}

test('Deny: the activation waits for approval, then the same answer says it was denied and nothing loads', async ({
  page,
}) => {
  const chat = new ChatPage(page);
  const card = await askInNewChat(chat);
  await expectWaiting(chat, card);
  const answerId = await chat.lastAnswer().getAttribute('data-message-id');
  chats.denied = await chat.chatId();

  // Keyboard: the buttons are real buttons, in the order Allow, Always allow, Deny, with a visible focus ring.
  await card.getByTestId('approval-allow').focus();
  await expect(card.getByTestId('approval-allow')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(card.getByTestId('approval-always')).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(card.getByTestId('approval-allow')).toBeFocused();
  const outline = await card.getByTestId('approval-allow').evaluate((button) => getComputedStyle(button).outlineStyle);
  expect(outline).not.toBe('none');
  await page.getByTestId('message-list').evaluate((list) => list.scrollTo(0, 0));
  await page.screenshot({ path: screenshotPath('approval.png') });

  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(card.getByTestId('approval-deny')).toBeFocused();
  await page.keyboard.press('Enter');

  await expect(card).toHaveAttribute('data-state', 'denied');
  // The buttons are gone; the keyboard focus stayed on the card instead of falling back to the page.
  await expect(card).toBeFocused();
  await expect(card.getByTestId('tool-denied')).toHaveText('You denied this, so it did not run.');
  await expect(card.getByTestId('approval-prompt')).toHaveCount(0);
  await chat.waitForAnswer(1);
  // The answer continued in place: one assistant message, the same one.
  await expect(chat.lastAnswer()).toHaveAttribute('data-message-id', answerId ?? '');
  expect(await chat.answerText()).toMatch(/denied|not approved/i);
  await expect(chat.chip(SKILL)).toHaveCount(0);
  await expect(chat.toolCards('skills.readResource')).toHaveCount(0);
  const view = await page.request.get(`/api/chats/${chats.denied}`);
  expect(((await view.json()) as { activations: unknown[] }).activations).toEqual([]);
  expect(await activationCount(page)).toBe(0);

  await page.reload();
  await expect(chat.assistantMessages).toHaveCount(1);
  await expect(chat.toolCards('skills.activate')).toHaveAttribute('data-state', 'denied');
  await expect(page.getByTestId('approval-prompt')).toHaveCount(0);
});

test('Allow: the skill loads and the same answer goes on to read its files', async ({ page }) => {
  const chat = new ChatPage(page);
  const card = await askInNewChat(chat);
  await expectWaiting(chat, card);
  const answerId = await chat.lastAnswer().getAttribute('data-message-id');
  chats.allowed = await chat.chatId();
  // The question survives a reload: it is the stored answer, and it can be answered from there.
  await page.reload();
  await expectWaiting(chat, card);

  await card.getByTestId('approval-allow').click();
  await expect(card).toHaveAttribute('data-state', 'done');
  await expect(card.getByTestId('badge-approval')).toHaveText('approved by you');
  await expect(chat.chip(SKILL)).toBeVisible();
  for (const file of ['references/REFERENCE.md', 'assets/fixture.json', 'scripts/echo.sh']) {
    await expect(chat.resourceCard(file)).toHaveAttribute('data-state', 'done');
  }
  await chat.waitForAnswer(1);
  await expect(chat.lastAnswer()).toHaveAttribute('data-message-id', answerId ?? '');
  expect(await chat.answerText()).toContain('SKILLCHAT_CONFORMANCE_REFERENCE_v1');

  const content = await chat.expandCard(card);
  await expect(content.getByTestId('allowed-tools')).toHaveText(
    `allowed-tools ${ALLOWED_TOOLS} — shown only, grants nothing by itself`,
  );
  expect(await activationCount(page)).toBe(1);

  await page.reload();
  await expect(chat.assistantMessages).toHaveCount(1);
  await expect(chat.toolCards('skills.activate')).toHaveAttribute('data-state', 'done');
  await expect(chat.chip(SKILL)).toBeVisible();
});

test('Always allow: later chats skip the prompt until SKILL.md changes', async ({ page, request }) => {
  const chat = new ChatPage(page);
  const first = await askInNewChat(chat);
  await expectWaiting(chat, first);
  const approvalId = await first.getByTestId('approval-prompt').getAttribute('data-approval-id');
  expect(approvalId).toBeTruthy();
  const sent = page.waitForRequest((r) => r.url().endsWith('/api/chat') && r.method() === 'POST');
  await first.getByTestId('approval-always').click();
  // Only the answer travels, with "always"; the tool part itself stays on the server.
  const body: unknown = (await sent).postDataJSON();
  expect(body).toEqual({
    chatId: await chat.chatId(),
    trigger: 'approval-response',
    approvals: [{ approvalId, approved: true, always: true }],
  });
  await expect(first).toHaveAttribute('data-state', 'done');
  await chat.waitForAnswer(1);
  chats.always = await chat.chatId();

  const second = await askInNewChat(chat);
  await expect(second).toHaveAttribute('data-state', 'done');
  await chat.waitForAnswer(1);
  await expect(page.getByTestId('approval-prompt')).toHaveCount(0);
  await expect(second.getByTestId('badge-approval')).toHaveText('pre-approved');
  const content = await chat.expandCard(second);
  await expect(content.getByTestId('approval-note')).toHaveText(
    'Not asked: Always allowed for this version of the skill.',
  );
  await expect(chat.chip(SKILL)).toBeVisible();

  fs.appendFileSync(skillFile, '\nOne more line, so the skill is not the one that was allowed.\n');
  const rescan = await request.post('/api/admin/rescan', { headers: { origin: ORIGIN } });
  expect(rescan.status()).toBe(200);

  const third = await askInNewChat(chat);
  await expectWaiting(chat, third);
  // Allowed again, for the edited content: /admin now has an outdated and a current grant.
  await third.getByTestId('approval-always').click();
  await expect(third).toHaveAttribute('data-state', 'done');
  await chat.waitForAnswer(1);
});

test('a script run shows its exit code, duration and exact output', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.pickSkill('skills-sys', SKILL);
  await chat.typeAndSend('run scripts/echo.sh');
  chats.script = await chat.chatId();

  const card = chat.toolCards('skills.runScript', chat.lastAnswer());
  await expect(card).toHaveAttribute('data-state', 'done');
  await expect(card.getByTestId('tool-path')).toHaveText('scripts/echo.sh');
  await expect(card.getByTestId('script-exit-code')).toHaveText('exit 0');
  await expect(card.getByTestId('script-duration')).toHaveText(/^\d+ ms$|^\d+\.\d s$/);
  await expect(card.getByTestId('badge-timed-out')).toHaveCount(0);
  const content = await chat.expandCard(card);
  await expect(content.getByTestId('script-command')).toHaveText('$ scripts/echo.sh');
  // Exactly what the script printed, its newline included: nothing trimmed, nothing added.
  expect(await content.getByTestId('script-stdout').textContent()).toBe('SKILLCHAT_SKILLS_SCRIPT_OK\n');
  await expect(content.getByTestId('script-stderr')).toHaveCount(0);
  await chat.waitForAnswer(1);
});

test('/admin shows permissions, decisions and script runs; Revoke withdraws a grant', async ({ page }) => {
  await page.goto('/admin');
  await expect(page.getByTestId('admin-page')).toBeVisible();

  const permissionOf = (name: string) =>
    page.locator(`[data-testid="skill-row"][data-skill="${name}"]`).getByTestId('skill-permission');
  await expect(permissionOf(SKILL)).toHaveAttribute('data-permission', 'ask');
  await expect(permissionOf(SKILL)).toContainText(`rule "${SKILL}"`);
  await expect(permissionOf('commit-message')).toHaveAttribute('data-permission', 'allow');

  const grants = page.locator(`[data-testid="grant-row"][data-skill="${SKILL}"]`);
  await expect(grants).toHaveCount(2);
  await expect(grants.getByTestId('grant-hash').first()).toHaveText(/^[0-9a-f]{12}$/);
  await expect(grants.filter({ hasText: 'outdated' })).toHaveCount(1);
  const current = grants.filter({ hasText: 'current' });
  await expect(current).toHaveCount(1);

  const decisions = page.getByTestId('decision-row');
  await expect(decisions).toHaveCount(4);
  await expect(page.locator('[data-testid="decision-row"][data-decision="denied"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="decision-row"][data-decision="allowed"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="decision-row"][data-decision="always"]')).toHaveCount(2);
  await expect(
    page.locator('[data-testid="decision-row"][data-decision="denied"]').getByTestId('chat-link'),
  ).toHaveAttribute('href', `/chat/${chats.denied}`);

  const run = page.locator('[data-testid="script-run-row"][data-script="scripts/echo.sh"]');
  await expect(run).toHaveCount(1);
  await expect(run.getByTestId('script-run-command')).toHaveText('scripts/echo.sh');
  await expect(run.getByTestId('script-run-exit')).toHaveText('0');
  await expect(run.getByTestId('chat-link')).toHaveAttribute('href', `/chat/${chats.script}`);

  const section = page.getByTestId('permissions');
  await section.scrollIntoViewIfNeeded();
  await page.mouse.move(0, 0);
  await section.screenshot({ path: screenshotPath('admin-permissions.png') });

  // A write without Origin is refused before it reaches the route; bad and unknown ids are told apart.
  const grantId = await current.getAttribute('data-grant-id');
  expect((await page.request.post(`/api/admin/grants/${grantId}/revoke`)).status()).toBe(403);
  const revoke = (id: string) => page.request.post(`/api/admin/grants/${id}/revoke`, { headers: { origin: ORIGIN } });
  expect((await revoke('abc')).status()).toBe(400);
  expect((await revoke('999999')).status()).toBe(404);
  await page.reload();
  await expect(grants).toHaveCount(2);

  await current.getByTestId('grant-revoke').click();
  await expect(grants).toHaveCount(1);
  await expect(grants.filter({ hasText: 'outdated' })).toHaveCount(1);
  await expect(page.getByTestId('grant-revoke-error')).toHaveCount(0);

  // Without the grant for its current content, the skill asks again.
  const chat = new ChatPage(page);
  const card = await askInNewChat(chat);
  await expectWaiting(chat, card);
});
