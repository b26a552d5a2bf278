import { describe, expect, it } from 'vitest';
import { parseChatRequest } from './request';

const message = { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hello' }] };

describe('parseChatRequest: edits (issue 13)', () => {
  it('keeps messageId when it names the message sent', () => {
    expect(parseChatRequest({ chatId: 'c1', message, messageId: 'm1' })).toEqual({
      chatId: 'c1',
      trigger: 'submit-message',
      message: { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hello' }] },
      messageId: 'm1',
    });
    expect(parseChatRequest({ chatId: 'c1', message })).not.toHaveProperty('messageId');
  });

  it('refuses an edit whose id is not the message sent', () => {
    expect(() => parseChatRequest({ chatId: 'c1', message, messageId: 'other' })).toThrow(/keeps the id/);
  });
});
