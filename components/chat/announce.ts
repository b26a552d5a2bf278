/** What the chat's live region says when an answer ends: read once, so short. */
import type { ChatMessage } from '@/server/chat/types';

/** A screen reader reads this much of a finished answer; the rest is in the list. */
export const ANNOUNCE_CHARS = 300;

/** The answer's own text (tool cards left out), on one line and shortened. */
export function announcementFor(message: ChatMessage): string {
  const text = message.parts
    .map((p) => (p.type === 'text' ? p.text : ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return 'The answer finished.';
  const shown = text.length > ANNOUNCE_CHARS ? `${text.slice(0, ANNOUNCE_CHARS)}…` : text;
  return `New answer: ${shown}`;
}
