/**
 * A skill's evals on its admin page, with the offline model: the pdf skill's output cases run with the skill and
 * without it, side by side, the failed runs' chats one click away; a second run is stopped.
 */
import { expect, test } from '@playwright/test';
import { screenshotPath } from './screenshot-path';

test.describe('skill evals', () => {
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
