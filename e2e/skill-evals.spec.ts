/**
 * Skill evals on a skill's /admin page, as an author runs them, with the offline model.
 *
 * Trigger evals: queries the skill carries plus typed ones, run with the skill among every installed one; the rates,
 * the skill that won each miss, and "Improve the description" with proposals that change nothing until one is saved.
 * They run on a `next start` of their own whose install root is a temporary copy of a skill with a narrow
 * description (server/evals/fixtures/describe-narrow).
 *
 * Output evals: the pdf skill's cases run with the skill and without it, side by side, on the suite's server; the
 * failed runs' chats one click away; a second run is stopped.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type Locator, test } from '@playwright/test';
import { freePort, type OwnServer, startOwnServer } from './own-server';
import { screenshotPath } from './screenshot-path';

test.describe.configure({ mode: 'serial' });

const appDir = path.resolve(import.meta.dirname, '..');
const SKILL = 'invoice-totals';
const CURRENT = 'Adds up the line items of an invoice.';

let server: OwnServer;
let tmp: string;

test.beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-skill-evals-'));
  const root = path.join(tmp, 'skills');
  fs.cpSync(path.join(appDir, 'server', 'evals', 'fixtures', 'describe-narrow'), root, { recursive: true });
  fs.mkdirSync(path.join(tmp, 'home'));
  server = await startOwnServer(await freePort(), {
    SKILLCHAT_DB: path.join(tmp, 'test.db'),
    SKILLCHAT_HOME: path.join(tmp, 'home'),
    SKILLCHAT_SKILL_ROOTS: [root, path.join(appDir, '.skills')].join(path.delimiter),
    SKILLCHAT_INSTALL_ROOT: root,
    SKILLCHAT_OFFLINE_CHUNK_DELAY_MS: '0',
  });
});

test.afterAll(async () => {
  await server?.stop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const row = (section: Locator, query: string) => section.getByTestId('trigger-result').filter({ hasText: query });

test.describe('skill evals', () => {
  test("trigger evals on a skill's page", async ({ page }) => {
    await page.goto(`${server.origin}/admin/skills/${SKILL}`);
    const section = page.getByTestId('trigger-check');
    await expect(section.getByTestId('trigger-carried')).toContainText('8 queries from evals/trigger-queries.json');
    await section.getByTestId('trigger-should').fill('Total this invoice for me');
    await section.getByTestId('trigger-runs').fill('2');
    await section.getByTestId('trigger-run').click();

    await expect(section.getByTestId('trigger-result')).toHaveCount(9);
    const hit = row(section, 'Add up the line items of this invoice');
    await expect(hit.getByTestId('trigger-result-rate')).toHaveText('2/2');
    await expect(hit).toHaveAttribute('data-passed', 'true');
    // A near-miss another skill took, named.
    const commit = row(section, 'Write a commit message for my staged diff');
    await expect(commit.getByTestId('trigger-result-instead')).toHaveText('commit-message 2/2');
    await expect(commit).toHaveAttribute('data-passed', 'true');
    // A query the narrow description misses.
    const miss = row(section, 'Is the receipt total right?');
    await expect(miss).toHaveAttribute('data-passed', 'false');
    await expect(miss.getByTestId('trigger-result-instead')).toHaveText('none 2/2');
    await expect(section.getByTestId('trigger-summary')).toContainText('queries passed');

    // Improve the description: proposals with their scores and a diff; nothing saved yet.
    await section.getByTestId('describe-run').click();
    await expect(section.getByTestId('describe-proposal')).toHaveCount(3);
    await expect(section.getByTestId('describe-current').getByTestId('describe-validation')).toContainText('2/4');
    const first = section.getByTestId('describe-proposal').first();
    await expect(first.getByTestId('describe-validation')).toContainText('4/4');
    await expect(first.locator('ins')).toHaveText('Use it also for total, bill, including, check, receipt.');
    await page.screenshot({ path: screenshotPath('skill-evals-trigger.png'), fullPage: true });
    await page.reload();
    await expect(page.locator('.description').first()).toHaveText(CURRENT);
    // The last proposals are kept with the page.
    await expect(section.getByTestId('describe-proposal')).toHaveCount(3);

    // Save goes through the editor's save: then the description changes.
    await section.getByTestId('describe-save').first().click();
    await expect(section.getByTestId('describe-saved')).toContainText('Saved');
    await page.reload();
    await expect(page.locator('.description').first()).toHaveText(
      `${CURRENT} Use it also for total, bill, including, check, receipt.`,
    );
  });

  test('output evals side by side', async ({ page }) => {
    test.setTimeout(300_000);
    await page.goto('/admin/skills/pdf');
    const section = page.getByTestId('output-evals');
    await section.getByTestId('output-evals-run').click();
    await expect(section.getByTestId('output-evals-status')).toHaveAttribute('data-status', 'running');
    await expect(section.getByTestId('output-evals-status')).toHaveAttribute('data-status', 'done', {
      timeout: 240_000,
    });

    const cell = (id: string, arm: string) =>
      section.locator(`[data-testid="output-eval-cell"][data-case="${id}"][data-arm="${arm}"]`);
    for (const id of ['fill-form', 'list-fields']) {
      await expect(cell(id, 'with')).toHaveAttribute('data-verdict', 'pass');
      await expect(cell(id, 'without')).toHaveAttribute('data-verdict', 'fail');
    }
    await expect(section.getByTestId('output-evals-overall')).toContainText('2/2 (100%)');
    await expect(section.getByTestId('output-evals-overall')).toContainText('0/2 (0%)');
    await expect(section.getByTestId('output-evals-failed')).toContainText('filled.pdf was not made');
    await page.screenshot({ path: screenshotPath('skill-output-evals.png'), fullPage: true });

    // A failed run's transcript: the scratch chat, marked as an eval, with the prompt the case sent.
    await section.getByTestId('output-evals-transcript').first().click();
    await expect(page).toHaveURL(/\/chat\/eval-/);
    await expect(page.getByTestId('chat-title')).toContainText('Eval · pdf · fill-form · without the skill');
    await expect(page.getByTestId('message-user').first()).toContainText('/pdf run scripts/fill_fields.py');

    // A second run, stopped: it ends as stopped and the page says so.
    await page.goto('/admin/skills/pdf');
    await section.getByTestId('output-evals-run').click();
    await section.getByTestId('output-evals-stop').click();
    await expect(section.getByTestId('output-evals-status')).toHaveAttribute('data-status', 'stopped', {
      timeout: 60_000,
    });
    await expect(section.getByTestId('output-evals-run')).toBeVisible();
  });
});
