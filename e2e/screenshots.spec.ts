/** Pictures of the chat page for the README, in both color schemes. Look at them after a UI change. */
import { test } from '@playwright/test';
import { ChatPage } from './chat-page';

test('screenshots of a chat in light and dark', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await chat.pickSkill('skills-sys', 'skills-system-validation');
  await chat.typeAndSend('validate that skills.activate and skills.readResource work');
  await chat.waitForAnswer(1);
  await chat.expandCard(chat.resourceCard('references/REFERENCE.md'));
  // The same framing every run: the question, the cards and the start of the answer; no hover, no focus ring.
  await page.getByTestId('message-list').evaluate((list) => list.scrollTo(0, 0));
  await page.mouse.move(0, 0);
  await chat.input.blur();

  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await page.screenshot({ path: `e2e/screenshots/chat-${colorScheme}.png` });
  }
});
