/**
 * What the browser sends for approvals: only the answers given on this page, once; "always" rides along; a normal
 * send still carries only the newest user message.
 */
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '@/server/chat/wire-types';
import { chatRequestBody, shouldSendApprovals, type UnsentApprovals } from './approvals';

const user: ChatMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'validate the skills system' }] };

function answer(state: 'approval-requested' | 'approval-responded', id: string, approved = true): ChatMessage {
  const approval = state === 'approval-requested' ? { id } : { id, approved };
  return {
    id: 'a1',
    role: 'assistant',
    parts: [
      { type: 'step-start' },
      {
        type: 'tool-skills_activate',
        toolCallId: `call-${id}`,
        state,
        input: { name: 'skills-system-validation' },
        approval,
      } as ChatMessage['parts'][number],
    ],
  };
}

describe('approval answers', () => {
  it('are sent once, as answers only, with "always" when chosen', () => {
    const unsent: UnsentApprovals = new Map([['ap1', { approvalId: 'ap1', approved: true, always: true }]]);
    const messages = [user, answer('approval-responded', 'ap1')];
    expect(shouldSendApprovals(messages, unsent)).toBe(true);
    expect(chatRequestBody({ id: 'c1', messages, trigger: 'submit-message' }, unsent)).toEqual({
      chatId: 'c1',
      trigger: 'approval-response',
      approvals: [{ approvalId: 'ap1', approved: true, always: true }],
    });
    expect(unsent.size).toBe(0);
    expect(shouldSendApprovals(messages, unsent)).toBe(false);
  });

  it('wait while a prompt is unanswered, and are not invented for answers given elsewhere', () => {
    const unsent: UnsentApprovals = new Map();
    expect(shouldSendApprovals([user, answer('approval-requested', 'ap1')], unsent)).toBe(false);
    // Stored as responded on the server (e.g. after a reload): the server has this answer already.
    expect(shouldSendApprovals([user, answer('approval-responded', 'ap1', false)], unsent)).toBe(false);
  });

  it('leave a normal send as the newest user message, and regenerate as a bare trigger', () => {
    const unsent: UnsentApprovals = new Map();
    expect(chatRequestBody({ id: 'c1', messages: [user], trigger: 'submit-message' }, unsent)).toEqual({
      chatId: 'c1',
      trigger: 'submit-message',
      message: user,
    });
    expect(chatRequestBody({ id: 'c1', messages: [user], trigger: 'regenerate-message' }, unsent)).toEqual({
      chatId: 'c1',
      trigger: 'regenerate-message',
    });
  });

  it('mark an edited message with its id (issue 13), and only when it is the message sent', () => {
    const unsent: UnsentApprovals = new Map();
    expect(
      chatRequestBody({ id: 'c1', messages: [user], trigger: 'submit-message', messageId: user.id }, unsent),
    ).toEqual({ chatId: 'c1', trigger: 'submit-message', message: user, messageId: user.id });
    expect(
      chatRequestBody({ id: 'c1', messages: [user], trigger: 'submit-message', messageId: 'other' }, unsent),
    ).toEqual({ chatId: 'c1', trigger: 'submit-message', message: user });
  });
});
