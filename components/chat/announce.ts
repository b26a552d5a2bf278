/** What the chat's live region says when an answer ends: read once, so short. */
import type { ChatMessage } from '@/server/chat/wire-types';

/** A screen reader reads this much of a finished answer; the rest is in the list. */
export const ANNOUNCE_CHARS = 300;

/** The answer's own text (tool cards left out), on one line and shortened; says so when it waits for consent. */
export function announcementFor(message: ChatMessage): string {
  const waiting = message.parts.some((p) => 'state' in p && p.state === 'approval-requested');
  const text = message.parts
    .map((p) => (p.type === 'text' ? p.text : ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  const asks = waiting ? ' It waits for your approval.' : '';
  if (!text) return waiting ? 'The answer waits for your approval.' : 'The answer finished.';
  const shown = text.length > ANNOUNCE_CHARS ? `${text.slice(0, ANNOUNCE_CHARS)}…` : text;
  return `New answer: ${shown}${asks}`;
}
