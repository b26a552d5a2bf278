/**
 * Every file a skill makes, shown: a command writes files into folders (`unpacked/` with 16 XML files, `pages/`,
 * `site/`); the run's card folds the big folder into one line, the Files panel shows the tree with the new files
 * marked, and the viewer beside the chat opens a CSV as a table, Markdown rendered, an SVG as an image, a PDF's page
 * and a page the command built live in a frame that can reach neither the app's cookies nor the network.
 * Needs bubblewrap and the skills runtime, as files.spec.ts does.
 */
import { expect, type Page, test } from '@playwright/test';
import { ChatPage } from './chat-page';
import { screenshotPath } from './screenshot-path';

/** The page's script reports whether it could read the cookies and fetch the app's API. */
const APP_HTML = [
  '<!doctype html><html><body><h1>Live app</h1><p id="out">waiting</p><script>',
  'var out = document.getElementById("out");',
  'var cookie = "cookie blocked"; try { void document.cookie; cookie = "cookie readable"; } catch (e) {}',
  'fetch("/api/chats").then(function () { out.textContent = "fetch allowed; " + cookie; },',
  '  function () { out.textContent = "fetch blocked; " + cookie; });',
  '</script></body></html>',
].join('\n');

const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80"><rect width="120" height="80" fill="teal"/></svg>';

const COMMAND = [
  'mkdir -p unpacked/word pages site',
  'for i in $(seq 1 16); do echo "<part n=\\"$i\\"/>" > unpacked/word/part$i.xml; done',
  `printf 'name,score\\n"Lovelace, Ada",10\\nBabbage,7\\n' > table.csv`,
  `printf '# Notes\\n\\nSome **bold** words.\\n' > notes.md`,
  `cat > site/app.html <<'HTML'\n${APP_HTML}\nHTML`,
  `cat > pages/logo.svg <<'SVG'\n${SVG}\nSVG`,
  'cp /skills/pdf/assets/sample-form.pdf pages/form.pdf',
  'echo written',
].join('\n');

async function openFromCard(page: Page, name: string) {
  await page.locator(`[data-testid="artifact-card"][data-name="${name}"]`).getByTestId('artifact-open').click();
  await expect(page.getByTestId('viewer')).toHaveAttribute('data-name', name);
}

test('files a command writes in folders: the card, the tree, and each kind in the viewer', async ({ page }) => {
  test.setTimeout(150_000);
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.send(`/pdf $ ${COMMAND}`);
  await chat.waitForAnswer();
  const answer = chat.lastAnswer();
  const shell = chat.toolCards('sandbox.exec', answer);
  await expect(shell).toHaveAttribute('data-state', 'done');
  await expect(shell.getByTestId('shell-exit-code')).toHaveText('exit 0');
  const chatId = await chat.chatId();

  // The run's card: the folder of 16 as one line with its count, the others as cards.
  const folder = answer.locator('[data-testid="artifact-folder"][data-name="unpacked"]');
  await expect(folder.getByTestId('artifact-folder-count')).toContainText('16 files');
  await expect(answer.locator('[data-testid="artifact-card"][data-name="pages/form.pdf"]')).toBeVisible();
  await expect(answer.locator('[data-testid="artifact-card"][data-name="site/app.html"]')).toBeVisible();
  await folder.locator('summary').click();
  await expect(folder.getByTestId('artifact-folder-item')).toHaveCount(16);

  // The Files panel: the tree, every file of the run marked new.
  const panel = page.getByTestId('files-panel');
  await panel.locator('summary').first().click();
  await expect(panel.locator('[data-testid="files-panel-folder"][data-path="unpacked"]')).toContainText('16 files');
  await expect(panel.getByTestId('files-panel-item')).toHaveCount(21);
  await expect(panel.locator('[data-testid="files-panel-item"][data-change="created"]')).toHaveCount(21);
  await expect(panel.locator('[data-testid="files-panel-item"][data-path="unpacked/word/part7.xml"]')).toBeAttached();

  // CSV as a table, quoted commas kept in their cell.
  await openFromCard(page, 'table.csv');
  const table = page.getByTestId('viewer-table');
  await expect(table.locator('th')).toHaveText(['name', 'score']);
  await expect(table.locator('tbody tr').first().locator('td')).toHaveText(['Lovelace, Ada', '10']);

  // Markdown through the chat's renderer.
  await openFromCard(page, 'notes.md');
  await expect(page.getByTestId('viewer-markdown').locator('h1')).toHaveText('Notes');
  await expect(page.getByTestId('viewer-markdown').locator('[data-streamdown="strong"]')).toHaveText('bold');

  // SVG as an image, never as markup.
  await openFromCard(page, 'pages/logo.svg');
  const svg = page.getByTestId('viewer-image');
  await expect.poll(() => svg.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(120);
  await expect(page.getByTestId('viewer').locator('svg rect')).toHaveCount(0);

  // A PDF's page, rendered in the sandbox.
  await openFromCard(page, 'pages/form.pdf');
  const pdfPage = page.getByTestId('viewer-page').first();
  await expect.poll(() => pdfPage.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);
  await page.screenshot({ path: screenshotPath('viewer-desktop-pdf.png') });

  // The page a command built runs, in a frame with scripts and no same-origin: no cookies, no fetch.
  await openFromCard(page, 'site/app.html');
  const frame = page.getByTestId('viewer-frame');
  await expect(frame).toHaveAttribute('sandbox', 'allow-scripts');
  await expect(page.frameLocator('[data-testid="viewer-frame"]').locator('#out')).toHaveText(
    'fetch blocked; cookie blocked',
  );
  await page.screenshot({ path: screenshotPath('viewer-desktop-html.png') });

  // A file in the tree opens too, once its folders are opened.
  await panel.locator('[data-testid="files-panel-folder"][data-path="unpacked"] > details > summary').click();
  await panel.locator('[data-testid="files-panel-folder"][data-path="unpacked/word"] > details > summary').click();
  await panel
    .locator('[data-testid="files-panel-item"][data-path="unpacked/word/part7.xml"]')
    .getByTestId('files-panel-open')
    .click();
  await expect(page.getByTestId('viewer-text')).toContainText('<part n="7"/>');

  // On a phone the viewer is a sheet over the whole screen.
  await page.getByTestId('viewer-close').click();
  await page.setViewportSize({ width: 390, height: 844 });
  await openFromCard(page, 'table.csv');
  const box = await page.getByTestId('viewer').boundingBox();
  expect(box).toEqual({ x: 0, y: 0, width: 390, height: 844 });
  await page.screenshot({ path: screenshotPath('viewer-phone-csv.png') });
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('viewer')).toHaveCount(0);

  // The routes: nested paths served as downloads, old flat URLs as before, no way out, the frame's policy.
  const nested = await page.request.get(`/api/chats/${chatId}/files/unpacked/word/part1.xml`);
  expect(nested.status()).toBe(200);
  expect(nested.headers()['content-disposition']).toBe("attachment; filename*=UTF-8''part1.xml");
  expect(nested.headers()['content-security-policy']).toContain('sandbox');
  expect((await page.request.get(`/api/chats/${chatId}/files/table.csv`)).status()).toBe(200);
  for (const way of ['..%2Fmeta.json', '%2e%2e/meta.json', 'unpacked/..%2F..%2Fmeta.json', '%2Fetc%2Fpasswd']) {
    const refused = await page.request.get(`/api/chats/${chatId}/files/${way}`);
    expect([400, 404], way).toContain(refused.status());
  }
  const live = await page.request.get(`/api/chats/${chatId}/view/site/app.html`);
  expect(live.status()).toBe(200);
  expect(live.headers()['content-type']).toContain('text/html');
  expect(live.headers()['content-security-policy']).toContain("default-src 'none'");
  expect(live.headers()['content-security-policy']).toContain('sandbox allow-scripts');
  expect(live.headers()['content-security-policy']).not.toContain('allow-same-origin');
  expect((await page.request.get(`/api/chats/${chatId}/view/table.csv`)).status()).toBe(400);
});

test('a file written twice shows two versions by turn, and the earlier one opens with its content', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.send(`/pdf $ printf '# First draft\\n' > notes.md`);
  await chat.waitForAnswer(1);
  // Named from what was asked: the skill, the command's program and its file.
  await expect(chat.title).toHaveText('pdf: printf notes.md');
  await chat.send(`/pdf $ printf '# Second draft\\n\\nWith more words.\\n' > notes.md`);
  await chat.waitForAnswer(2);

  await chat
    .lastAnswer()
    .locator('[data-testid="artifact-card"][data-name="notes.md"]')
    .getByTestId('artifact-open')
    .click();
  const versions = page.getByTestId('viewer-version');
  await expect(versions).toHaveText(['Turn 1', 'Turn 2 (latest)']);
  const heading = page.getByTestId('viewer-markdown').locator('h1');
  await expect(heading).toHaveText('Second draft');

  await versions.first().click();
  await expect(versions.first()).toHaveAttribute('aria-pressed', 'true');
  await expect(heading).toHaveText('First draft');
  await expect(page.getByTestId('viewer-earlier')).toContainText('from turn 1');
  await page.screenshot({ path: screenshotPath('viewer-earlier-version.png') });
  const download = await page.request.get((await page.getByTestId('viewer-download').getAttribute('href'))!);
  expect(download.status()).toBe(200);
  expect(await download.text()).toBe('# First draft\n');

  await versions.last().click();
  await expect(heading).toHaveText('Second draft');
  await expect(page.getByTestId('viewer-earlier')).toHaveCount(0);
});

/** A two-slide deck, a report of several pages and a sheet: each office kind the viewer shows as pages. */
const OFFICE_COMMAND = [
  "for i in $(seq 1 120); do printf 'Paragraph %s of the quarterly report, long enough to fill a line or two of its page.\\n\\n' $i; done | pandoc -o report.docx",
  "printf 'region,q1,q2\\nNorth,10,12\\nSouth,7,9\\n' > book.csv && soffice --headless --convert-to xlsx book.csv >/dev/null",
  "cat > deck.js <<'JS'",
  "const pptxgen = require('pptxgenjs');",
  'const pres = new pptxgen();',
  "pres.addSlide().addText('Quarterly review', { x: 1, y: 1, fontSize: 36 });",
  "pres.addSlide().addText('Next steps', { x: 1, y: 1, fontSize: 36 });",
  "pres.writeFile({ fileName: 'deck.pptx' }).then(() => console.log('deck written'));",
  'JS',
  'node deck.js',
].join('\n');

test('Word, PowerPoint and Excel files a command made, each shown as pages in the viewer', async ({ page }) => {
  test.setTimeout(180_000);
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.send(`/docx $ ${OFFICE_COMMAND}`);
  await chat.waitForAnswer();
  const shell = chat.toolCards('sandbox.exec', chat.lastAnswer());
  await expect(shell).toHaveAttribute('data-state', 'done');
  await expect(shell.getByTestId('shell-exit-code')).toHaveText('exit 0');

  // Each is converted to PDF by LibreOffice in the sandbox and its pages rendered; every page is there.
  const pages = page.getByTestId('viewer-page');
  const rendered = () => pages.first().evaluate((img: HTMLImageElement) => img.naturalWidth);
  await openFromCard(page, 'deck.pptx');
  await expect(pages).toHaveCount(2, { timeout: 60_000 });
  await expect.poll(rendered, { timeout: 60_000 }).toBeGreaterThan(100);
  await expect(pages.first()).toHaveAttribute('alt', 'Page 1 of deck.pptx');
  await page.screenshot({ path: screenshotPath('viewer-desktop-pptx.png') });

  await openFromCard(page, 'report.docx');
  await expect.poll(() => pages.count(), { timeout: 60_000 }).toBeGreaterThan(1);
  await expect.poll(rendered, { timeout: 60_000 }).toBeGreaterThan(100);
  await pages.nth(1).scrollIntoViewIfNeeded();
  await expect
    .poll(() => pages.nth(1).evaluate((img: HTMLImageElement) => img.naturalWidth), { timeout: 60_000 })
    .toBeGreaterThan(100);
  await page.screenshot({ path: screenshotPath('viewer-desktop-docx.png') });

  await openFromCard(page, 'book.xlsx');
  await expect(pages).toHaveCount(1, { timeout: 60_000 });
  await expect.poll(rendered, { timeout: 60_000 }).toBeGreaterThan(100);
  await page.screenshot({ path: screenshotPath('viewer-desktop-xlsx.png') });
});
