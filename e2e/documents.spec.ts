/**
 * Skills run the way they are written: a person attaches a document and the offline model runs `/NAME $ COMMAND`
 * in the chat's sandbox with the bundled document skills (LibreOffice, Python, Node from the runtime). What comes
 * back is checked as a person would: the artifact card, its preview, and the downloaded file's content.
 * Needs bubblewrap, LibreOffice, pandoc and the skills runtime (`bin/skills runtime install`; `npm test` does it first).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { ChatPage } from './chat-page';

const APP = path.join(import.meta.dirname, '..');
const PYTHON = path.join(
  process.env.SKILLCHAT_RUNTIME_DIR ?? path.join(APP, 'data', 'runtime'),
  'python',
  'bin',
  'python3',
);

let work: string;
test.beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-e2e-docs-'));
});
test.afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** Runs the runtime's Python on the host to read what the person downloaded. */
function python(code: string, ...args: string[]): string {
  return execFileSync(PYTHON, ['-c', code, ...args], { encoding: 'utf8' });
}

async function runAndWait(chat: ChatPage, message: string) {
  await chat.send(message);
  await chat.waitForAnswer();
  const shell = chat.toolCards('sandbox.exec', chat.lastAnswer());
  await expect(shell).toHaveAttribute('data-state', 'done');
  await expect(shell.getByTestId('shell-exit-code')).toHaveText('exit 0');
  return shell;
}

test('attach a .docx and get a PDF back through soffice, with its preview', async ({ page }) => {
  test.setTimeout(120_000);
  const docx = path.join(work, 'letter.docx');
  execFileSync('pandoc', ['-o', docx], { input: '# Dear Ada\n\nThe engine is ready.\n' });
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await page.getByTestId('file-input').setInputFiles(docx);
  await expect(page.getByTestId('composer-attachment')).toHaveAttribute('data-name', 'letter.docx');

  await runAndWait(chat, '/docx $ soffice --headless --convert-to pdf letter.docx');
  const answer = chat.lastAnswer();
  await expect(chat.toolCards('skills.activate', answer)).toHaveAttribute('data-state', 'done');
  const card = answer.locator('[data-testid="artifact-card"][data-name="letter.pdf"]');
  await expect(card).toBeVisible();
  const preview = card.getByTestId('artifact-preview-pdf');
  await expect(preview).toBeVisible();
  await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);

  const [download] = await Promise.all([page.waitForEvent('download'), card.getByTestId('artifact-download').click()]);
  const pdf = path.join(work, 'letter.pdf');
  fs.copyFileSync(await download.path(), pdf);
  expect(execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' })).toContain('The engine is ready.');
});

test('attach an .xlsx with formulas, recalculate it, and the download holds computed values', async ({ page }) => {
  test.setTimeout(120_000);
  const book = path.join(work, 'budget.xlsx');
  python(
    'import openpyxl, sys\nwb = openpyxl.Workbook()\nws = wb.active\nws["A1"] = 40\nws["A2"] = 2\nws["A3"] = "=A1+A2"\nws["B1"] = "=A3*10"\nwb.save(sys.argv[1])',
    book,
  );
  // openpyxl writes formulas without cached values: read back before recalculation, they are empty.
  expect(
    python(
      'import openpyxl, sys\nprint(openpyxl.load_workbook(sys.argv[1], data_only=True).active["B1"].value)',
      book,
    ).trim(),
  ).toBe('None');

  const chat = new ChatPage(page);
  await chat.openNewChat();
  await page.getByTestId('file-input').setInputFiles(book);
  await expect(page.getByTestId('composer-attachment')).toHaveAttribute('data-name', 'budget.xlsx');
  const shell = await runAndWait(chat, '/xlsx $ python3 /skills/xlsx/scripts/recalc.py budget.xlsx');
  const content = await chat.expandCard(shell);
  await expect(content.getByTestId('shell-stdout')).toContainText('success');

  const card = chat.lastAnswer().locator('[data-testid="artifact-card"][data-name="budget.xlsx"]');
  await expect(card).toBeVisible();
  const [download] = await Promise.all([page.waitForEvent('download'), card.getByTestId('artifact-download').click()]);
  const saved = path.join(work, 'recalculated.xlsx');
  fs.copyFileSync(await download.path(), saved);
  const values = python(
    'import openpyxl, sys\nws = openpyxl.load_workbook(sys.argv[1], data_only=True).active\nprint(ws["A3"].value, ws["B1"].value)',
    saved,
  );
  expect(values.trim()).toMatch(/^42(\.0)? 420(\.0)?$/);
});

test('a deck made by model-written pptxgenjs code, with its thumbnail grid', async ({ page }) => {
  test.setTimeout(150_000);
  const chat = new ChatPage(page);
  await chat.openNewChat();
  const script = [
    "const pptxgen = require('pptxgenjs');",
    'const pres = new pptxgen();',
    "for (const title of ['Quarterly review', 'Numbers that matter']) {",
    '  const slide = pres.addSlide();',
    '  slide.addText(title, { x: 0.5, y: 1, w: 9, h: 1.5, fontSize: 36 });',
    '}',
    "pres.writeFile({ fileName: 'deck.pptx' }).then(() => console.log('deck written'));",
  ].join('\n');
  const shell = await runAndWait(
    chat,
    `/pptx $ cat > deck.js <<'JS'\n${script}\nJS\nnode deck.js && python3 /skills/pptx/scripts/thumbnail.py deck.pptx deck-grid.png`,
  );
  const content = await chat.expandCard(shell);
  await expect(content.getByTestId('shell-stdout')).toContainText('deck written');

  const answer = chat.lastAnswer();
  await expect(answer.locator('[data-testid="artifact-card"][data-name="deck.pptx"]')).toBeVisible();
  const grid = answer.locator('[data-testid="artifact-card"][data-name="deck-grid.png"]');
  await expect(grid).toBeVisible();
  const image = grid.getByTestId('artifact-preview-image');
  await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(200);
});

test('/admin says which sandbox runs code: bubblewrap and its version, run slots, the shell mode, the seccomp filter', async ({
  page,
}) => {
  await page.goto('/admin');
  const card = page.locator('#sandbox');
  await expect(card.getByTestId('sandbox-backend')).toHaveAttribute('data-backend', 'bwrap');
  await expect(card.getByTestId('sandbox-backend')).toContainText(/bubblewrap \d+\.\d+/);
  await expect(card.getByTestId('sandbox-runs')).toContainText('Runs at once: 4');
  await expect(card.getByTestId('sandbox-office')).toContainText(/LibreOffice kept running .*: \d of at most 2 now/);
  // The e2e server is loopback-only: the model's shell defaults to allow there.
  await expect(card.getByTestId('sandbox-shell')).toHaveAttribute('data-mode', 'allow');
  await expect(card.getByTestId('runtime-seccomp')).toContainText('unshare');
  await card.scrollIntoViewIfNeeded();
  await card.screenshot({ path: path.join('test-results', 'screenshots', 'admin-sandbox.png') });
});
