/** The live region's sentence for a finished answer: its text on one line, shortened; tool parts are not read. */
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '@/server/chat/wire-types';
import { ANNOUNCE_CHARS, announcementFor } from './announce';

function answer(...texts: string[]): ChatMessage {
  return {
    id: 'a1',
    role: 'assistant',
    parts: [{ type: 'step-start' }, ...texts.map((text) => ({ type: 'text' as const, text }))],
  };
}

describe('announcementFor', () => {
  it('reads the text parts on one line', () => {
    expect(announcementFor(answer('Hello\n\nthere.', '  Second  part '))).toBe('New answer: Hello there. Second part');
  });

  it('shortens a long answer and marks the cut', () => {
    const said = announcementFor(answer('a'.repeat(ANNOUNCE_CHARS + 50)));
    expect(said).toBe(`New answer: ${'a'.repeat(ANNOUNCE_CHARS)}…`);
  });

  it('says the answer finished when it has no text (only tool cards)', () => {
    expect(announcementFor(answer())).toBe('The answer finished.');
  });

  it('says when the answer waits for an approval on a card', () => {
    const waiting: ChatMessage = {
      id: 'a2',
      role: 'assistant',
      parts: [
        {
          type: 'tool-skills_activate',
          toolCallId: 'call-1',
          state: 'approval-requested',
          input: { name: 'pdf' },
          approval: { id: 'ap-1' },
        },
      ],
    };
    expect(announcementFor(waiting)).toBe('The answer waits for your approval.');
    const withText: ChatMessage = { ...waiting, parts: [{ type: 'text', text: 'Let me load it.' }, ...waiting.parts] };
    expect(announcementFor(withText)).toBe('New answer: Let me load it. It waits for your approval.');
  });
});
