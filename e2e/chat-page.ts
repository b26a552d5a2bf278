/**
 * What a person does in skillchat, as one page object: open a chat, type, pick a skill from the slash menu, send,
 * wait for the answer, read tool cards and chips, rename and delete chats in the sidebar.
 */
import { expect, type Locator, type Page } from '@playwright/test';

export class ChatPage {
  readonly input: Locator;
  readonly sendButton: Locator;
  readonly stopButton: Locator;
  readonly regenerateButton: Locator;
  readonly slashMenu: Locator;
  readonly modelPicker: Locator;
  readonly title: Locator;
  readonly userMessages: Locator;
  readonly assistantMessages: Locator;
  readonly chatItems: Locator;

  constructor(readonly page: Page) {
    this.input = page.getByTestId('composer-input');
    this.sendButton = page.getByTestId('send-button');
    this.stopButton = page.getByTestId('stop-button');
    this.regenerateButton = page.getByTestId('regenerate-button');
    this.slashMenu = page.getByTestId('slash-menu');
    this.modelPicker = page.getByTestId('model-picker');
    this.title = page.getByTestId('chat-title');
    this.userMessages = page.getByTestId('message-user');
    this.assistantMessages = page.getByTestId('message-assistant');
    this.chatItems = page.getByTestId('chat-item');
  }

  async openNewChat() {
    await this.page.goto('/');
    await expect(this.page.getByTestId('empty-chat')).toBeVisible();
    await this.ready();
  }

  /** Waits until React has attached the composer's handlers (a file chosen or a key typed before then is lost). */
  async ready() {
    await expect(this.input).toBeVisible();
    await expect(this.page.getByTestId('composer')).toHaveAttribute('data-hydrated', 'true');
  }

  /** The id in the address bar (the first send moves it from `/` to `/chat/:id`). */
  async chatId(): Promise<string> {
    await expect(this.page).toHaveURL(/\/chat\/[A-Za-z0-9_-]+$/);
    const id = new URL(this.page.url()).pathname.split('/').pop();
    if (!id) throw new Error(`no chat id in ${this.page.url()}`);
    return id;
  }

  /** Types `/prefix`, waits for the skill in the menu and picks it with the keyboard or the mouse. */
  async pickSkill(prefix: string, name: string, how: 'keyboard' | 'mouse' = 'keyboard') {
    await this.input.click();
    await this.input.fill('');
    await this.input.pressSequentially(`/${prefix}`);
    await expect(this.slashMenu).toBeVisible();
    const option = this.page.getByTestId(`slash-option-${name}`);
    await expect(option).toBeVisible();
    if (how === 'mouse') {
      await option.click();
    } else {
      // Arrow down to the option (the first one is highlighted when the menu opens), then Enter.
      for (let i = 0; i < 10 && (await option.getAttribute('aria-selected')) !== 'true'; i++) {
        await this.input.press('ArrowDown');
      }
      await expect(option).toHaveAttribute('aria-selected', 'true');
      await this.input.press('Enter');
    }
    await expect(this.slashMenu).toBeHidden();
    await expect(this.input).toHaveValue(`/${name} `);
  }

  /** Appends to what is in the box and sends with Enter. */
  async typeAndSend(text: string) {
    await this.input.focus();
    await this.input.press('End');
    await this.input.pressSequentially(text, { delay: 0 });
    await this.input.press('Enter');
  }

  async send(text: string) {
    await this.input.fill(text);
    await this.input.press('Enter');
  }

  /** Waits until the answer is complete: Regenerate only shows for a finished last answer. */
  async waitForAnswer(count?: number) {
    await expect(this.stopButton).toBeHidden({ timeout: 60_000 });
    await expect(this.regenerateButton).toBeVisible();
    if (count !== undefined) await expect(this.assistantMessages).toHaveCount(count);
  }

  lastAnswer(): Locator {
    return this.assistantMessages.last();
  }

  /** Text the assistant wrote in a message (tool cards excluded). */
  async answerText(message: Locator = this.lastAnswer()): Promise<string> {
    const parts = await message.getByTestId('assistant-text').allInnerTexts();
    return parts.join('\n').trim();
  }

  toolCards(displayName: string, scope: Locator | Page = this.page): Locator {
    return scope.getByTestId(`tool-card-${displayName}`);
  }

  allToolCards(scope: Locator | Page = this.page): Locator {
    return scope.locator('[data-testid^="tool-card-"]');
  }

  /** The readResource card for one path (shown in the card's header). */
  resourceCard(path: string, scope: Locator | Page = this.page): Locator {
    return this.toolCards('skills.readResource', scope).filter({
      has: this.page.getByTestId('tool-path').getByText(path, { exact: true }),
    });
  }

  /** Opens a card's collapsed content and returns it. */
  async expandCard(card: Locator): Promise<Locator> {
    const content = card.getByTestId('tool-content');
    // A card still settling (its result arriving, hydration) may open or re-render between the look and the click,
    // so a click can close what just opened: look again until it stays open.
    await expect(async () => {
      if (!(await content.isVisible())) await card.getByTestId('tool-toggle').click();
      await expect(content).toBeVisible({ timeout: 2000 });
    }).toPass({ timeout: 20_000 });
    return content;
  }

  chip(name: string): Locator {
    return this.page.getByTestId(`skill-chip-${name}`);
  }

  chatItem(id: string): Locator {
    return this.page.locator(`[data-testid="chat-item"][data-chat-id="${id}"]`);
  }

  async renameChat(id: string, title: string) {
    const item = this.chatItem(id);
    await item.hover();
    await item.getByTestId('chat-rename-button').click();
    const field = item.getByTestId('chat-rename-input');
    await expect(field).toBeFocused();
    await field.fill(title);
    await field.press('Enter');
    await expect(field).toBeHidden();
  }

  async deleteChat(id: string) {
    const item = this.chatItem(id);
    await item.hover();
    await item.getByTestId('chat-delete-button').click();
    await item.getByTestId('chat-delete-confirm').click();
  }
}
