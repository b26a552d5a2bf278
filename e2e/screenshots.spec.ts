/**
 * Pictures of the chat page for the README, in both color schemes. Before each picture the test checks that what
 * the README promises is in the frame, and after it that the picture is that color scheme and not a blank page.
 * `npm run screenshots` refreshes the tracked images; a normal run writes to test-results/.
 */
import fs from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { ChatPage } from './chat-page';
import { screenshotPath } from './screenshot-path';

/** Mean luminance (0-1) and its spread over the picture, measured by the browser's own PNG decoder. */
async function luminance(page: Page, png: Buffer): Promise<{ mean: number; spread: number }> {
  return page.evaluate(async (base64) => {
    const bitmap = await createImageBitmap(await (await fetch(`data:image/png;base64,${base64}`)).blob());
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext('2d');
    if (!context) throw new Error('no 2d context');
    context.drawImage(bitmap, 0, 0);
    const { data } = context.getImageData(0, 0, bitmap.width, bitmap.height);
    let sum = 0;
    let sumSquares = 0;
    const pixels = data.length / 4;
    for (let i = 0; i < data.length; i += 4) {
      const y = (0.2126 * (data[i] ?? 0) + 0.7152 * (data[i + 1] ?? 0) + 0.0722 * (data[i + 2] ?? 0)) / 255;
      sum += y;
      sumSquares += y * y;
    }
    const mean = sum / pixels;
    return { mean, spread: Math.sqrt(sumSquares / pixels - mean * mean) };
  }, png.toString('base64'));
}

test('screenshots of a chat in light and dark show the invocation, both cards and the answer', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.pickSkill('skills-sys', 'skills-system-validation');
  await chat.typeAndSend('validate that skills.activate and skills.readResource work');
  await chat.waitForAnswer(1);
  const resourceCard = chat.resourceCard('references/REFERENCE.md');
  await chat.expandCard(resourceCard);
  // The same framing every run: the question, the cards and the start of the answer; no hover, no focus ring.
  await page.getByTestId('message-list').evaluate((list) => list.scrollTo(0, 0));
  await page.mouse.move(0, 0);
  await chat.input.blur();

  // What the README's caption says the picture shows.
  await expect(chat.userMessages.first()).toBeInViewport();
  await expect(chat.userMessages.first()).toContainText('/skills-system-validation');
  await expect(chat.toolCards('skills.activate').first()).toBeInViewport();
  await expect(resourceCard.getByTestId('tool-content')).toBeInViewport({ ratio: 0.2 });
  await expect(chat.lastAnswer().getByTestId('assistant-text').first()).toBeInViewport({ ratio: 0.1 });

  const shoot = async (colorScheme: 'light' | 'dark') => {
    await page.emulateMedia({ colorScheme });
    const file = screenshotPath(`chat-${colorScheme}.png`);
    await page.screenshot({ path: file });
    return luminance(page, fs.readFileSync(file));
  };
  const measured = { light: await shoot('light'), dark: await shoot('dark') };
  // A light page is mostly light, a dark one mostly dark, and neither is a flat (blank or half-loaded) frame.
  expect(measured.light.mean).toBeGreaterThan(0.75);
  expect(measured.dark.mean).toBeLessThan(0.3);
  expect(measured.light.spread).toBeGreaterThan(0.05);
  expect(measured.dark.spread).toBeGreaterThan(0.05);
});
