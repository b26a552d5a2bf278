/**
 * Files in and out of a chat: upload a PDF form, run the bundled pdf skill's Python script on it in the
 * sandbox, see the artifact card with the first page previewed, download the filled PDF and check its content.
 * Needs bubblewrap and the skills runtime (`bin/skills runtime install`; `npm test` installs both first).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { ChatPage } from './chat-page';

const FORM = path.join(import.meta.dirname, '..', '.skills', 'pdf', 'assets', 'sample-form.pdf');

test('upload a form, fill it with the pdf skill, preview and download the result', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();

  await page.getByTestId('file-input').setInputFiles(FORM);
  await expect(page.getByTestId('composer-attachment')).toHaveAttribute('data-name', 'sample-form.pdf');

  await chat.send('/pdf run scripts/fill_fields.py sample-form.pdf filled.pdf "full_name=Ada Lovelace" newsletter=yes');
  const chatId = await chat.chatId();
  await expect(chat.userMessages.last().getByTestId('attachment-chip')).toHaveAttribute('data-name', 'sample-form.pdf');
  await chat.waitForAnswer(1);

  const answer = chat.lastAnswer();
  const run = chat.toolCards('skills.runScript', answer);
  await expect(run).toHaveAttribute('data-state', 'done');
  await expect(run.getByTestId('script-exit-code')).toHaveText('exit 0');
  // The form and the filled file are the chat's, not the skill's: nothing is read from the skill for them.
  await expect(chat.toolCards('skills.readResource', answer)).toHaveCount(0);

  const artifact = answer.getByTestId('artifact-card');
  await expect(artifact).toHaveAttribute('data-name', 'filled.pdf');
  await expect(artifact).toContainText('application/pdf');
  // The first page, rendered in the sandbox, really loaded.
  const preview = artifact.getByTestId('artifact-preview-pdf');
  await expect(preview).toBeVisible();
  await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);
  expect(await chat.answerText()).toContain('filled.pdf');

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    artifact.getByTestId('artifact-download').click(),
  ]);
  expect(download.suggestedFilename()).toBe('filled.pdf');
  const bytes = fs.readFileSync(await download.path());
  expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
  expect(bytes.toString('latin1')).toContain('Ada Lovelace');

  const panel = page.getByTestId('files-panel');
  await panel.locator('summary').click();
  await expect(panel.getByTestId('files-panel-item')).toHaveCount(2);
  await expect(panel.locator('[data-origin="script"]')).toContainText('filled.pdf');

  // The listing and the download headers, as the API gives them.
  const listed = await page.request.get(`/api/chats/${chatId}/files`);
  const { files } = (await listed.json()) as { files: Array<{ name: string; origin: string }> };
  expect(files.map((f) => [f.name, f.origin])).toEqual([
    ['sample-form.pdf', 'upload'],
    ['filled.pdf', 'script'],
  ]);
  const raw = await page.request.get(`/api/chats/${chatId}/files/filled.pdf`);
  expect(raw.headers()['content-disposition']).toMatch(/^attachment/);
  expect(raw.headers()['x-content-type-options']).toBe('nosniff');
});

test('upload names are made safe and caps answer with a clear error', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await page
    .getByTestId('file-input')
    .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hi') });
  await expect(page.getByTestId('composer-attachment')).toBeVisible();
  const chatId = await chat.chatId();
  const origin = new URL(page.url()).origin;

  const upload = (name: string) =>
    page.request.post(`/api/chats/${chatId}/files`, {
      headers: { origin },
      multipart: { file: { name, mimeType: 'text/plain', buffer: Buffer.from('x') } },
    });
  const cases: Array<[name: string, stored: string]> = [
    ['../../etc/passwd', 'passwd'],
    ['..', 'file'],
    ['.env', 'env'],
    ['notes.txt', 'notes (2).txt'],
  ];
  for (const [name, stored] of cases) {
    const response = await upload(name);
    expect(response.status(), name).toBe(201);
    expect(((await response.json()) as { file: { name: string } }).file.name).toBe(stored);
  }
  expect((await page.request.get(`/api/chats/${chatId}/files/..%2F..%2Fetc%2Fpasswd`)).status()).toBe(400);
  expect((await page.request.get(`/api/chats/${chatId}/files/missing.txt`)).status()).toBe(404);

  // Deleting the chat deletes its workspace folder (the e2e server keeps its data in .e2e/).
  const folder = path.join(import.meta.dirname, '..', '.e2e', 'workspaces', chatId);
  expect(fs.existsSync(folder)).toBe(true);
  expect((await page.request.delete(`/api/chats/${chatId}`, { headers: { origin } })).status()).toBe(204);
  expect(fs.existsSync(folder)).toBe(false);
  expect((await page.request.get(`/api/chats/${chatId}/files`)).status()).toBe(404);
});
