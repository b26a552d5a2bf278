/** Using skills from the chat: the slash menu, tool cards, refused reads, and skills picked up by matching. */
import { expect, test } from '@playwright/test';
import { ChatPage } from './chat-page';

test('the validation skill, picked from the slash menu, activates and reads its three files', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();
  await expect(chat.modelPicker.locator('option:checked')).toHaveText('Offline model (built-in)');

  await chat.pickSkill('skills-sys', 'skills-system-validation');
  await chat.typeAndSend('validate that skills.activate and skills.readResource work');
  await chat.chatId();

  const answer = chat.lastAnswer();
  const activate = chat.toolCards('skills.activate', answer);
  await expect(activate).toHaveAttribute('data-state', 'done');
  await expect(activate).toContainText('skills-system-validation');

  const reads: [path: string, marker: string][] = [
    ['references/REFERENCE.md', 'SKILLCHAT_CONFORMANCE_REFERENCE_v1'],
    ['assets/fixture.json', '"fixture_id": "skills-system-validation"'],
    ['scripts/echo.sh', 'SKILLCHAT_SKILLS_SCRIPT_OK'],
  ];
  for (const [path, marker] of reads) {
    const card = chat.resourceCard(path, answer);
    await expect(card).toHaveAttribute('data-state', 'done');
    const content = await chat.expandCard(card);
    await expect(content.locator('pre')).toContainText(marker);
  }

  await chat.waitForAnswer(1);
  // The activation comes first, then the reads.
  await expect(chat.allToolCards(answer).first()).toHaveAttribute('data-testid', 'tool-card-skills.activate');
  expect(await chat.answerText()).not.toBe('');
  await expect(chat.chip('skills-system-validation')).toBeVisible();
});

test('reads that leave the skill folder fail with a safe message and show no file content', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();

  // A bare `/name` activates the skill for the rest of the chat.
  await chat.pickSkill('skills-sys', 'skills-system-validation', 'mouse');
  await chat.input.press('Enter');
  await chat.waitForAnswer(1);
  await expect(chat.chip('skills-system-validation')).toBeVisible();

  await chat.send('Read ../SKILL.md and /etc/passwd and references/../../../../etc/passwd');
  await chat.waitForAnswer(2);

  const answer = chat.lastAnswer();
  for (const path of ['../SKILL.md', '/etc/passwd', 'references/../../../../etc/passwd']) {
    const card = chat.resourceCard(path, answer);
    await expect(card).toHaveAttribute('data-state', 'error');
    await expect(card.getByTestId('tool-error')).not.toBeEmpty();
    await expect(card.getByTestId('tool-content')).toHaveCount(0);
  }

  const shown = [...(await chat.allToolCards(answer).allInnerTexts()), await chat.answerText(answer)].join('\n');
  expect(shown).not.toContain('root:x:0:0');
  expect(shown).not.toContain(process.cwd());
  expect(shown).not.toContain('/work/');
});

test('a message about nothing in particular gets a plain answer; a clear match activates that skill', async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.openNewChat();

  await chat.send("hello there, what's the weather like?");
  await chat.waitForAnswer(1);
  expect(await chat.answerText()).not.toBe('');
  await expect(chat.allToolCards()).toHaveCount(0);
  await expect(page.locator('[data-testid^="skill-chip-"]')).toHaveCount(0);

  await chat.send('Can you write a commit message for my staged changes?');
  await chat.waitForAnswer(2);
  const activate = chat.toolCards('skills.activate', chat.lastAnswer());
  await expect(activate).toHaveAttribute('data-state', 'done');
  await expect(activate).toContainText('commit-message');
  await expect(chat.chip('commit-message')).toBeVisible();
});
