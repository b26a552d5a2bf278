/**
 * A person attaches documents: the chip says when a file's text was read for the model (read in the sandbox as
 * soon as it is uploaded), and why when it could not be. Needs bubblewrap and pdftotext, like the files tests.
 */
import { expect, test } from '@playwright/test';
import { pdfBytes } from '../test/documents';
import { ChatPage } from './chat-page';
import { screenshotPath } from './screenshot-path';

test('an attached PDF shows it was read; a damaged one says why not', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();

  await page.getByTestId('file-input').setInputFiles([
    {
      name: 'invoice.pdf',
      mimeType: 'application/pdf',
      buffer: pdfBytes(['Invoice 2041: total due 1,250 EUR.', 'Payment within 30 days.']),
    },
    { name: 'broken.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\nnot really a PDF\n') },
  ]);
  const invoice = page.locator('[data-testid="composer-attachment"][data-name="invoice.pdf"]');
  const broken = page.locator('[data-testid="composer-attachment"][data-name="broken.pdf"]');
  await expect(invoice.getByTestId('attachment-state')).toHaveAttribute('data-state', 'read');
  await expect(invoice.getByTestId('attachment-state')).toHaveText('✓ text read · 2 pages');
  await expect(broken.getByTestId('attachment-state')).toHaveAttribute('data-state', 'failed');
  await expect(broken.getByTestId('attachment-state')).toContainText('could not read: the PDF is damaged');
  await page.screenshot({ path: screenshotPath('attached-documents-composer.png') });

  await chat.send('what does this say?');
  const sent = chat.userMessages.last();
  await expect(sent.locator('[data-name="invoice.pdf"]').getByTestId('attachment-state')).toHaveAttribute(
    'data-state',
    'read',
  );
  await chat.waitForAnswer(1);
  await page.screenshot({ path: screenshotPath('attached-documents-message.png') });

  // The files list says the same to any client.
  const listed = await page.request.get(`/api/chats/${await chat.chatId()}/files`);
  const { files } = (await listed.json()) as { files: Array<{ name: string; text: { state: string } }> };
  expect(Object.fromEntries(files.map((f) => [f.name, f.text.state]))).toEqual({
    'invoice.pdf': 'read',
    'broken.pdf': 'failed',
  });
});
