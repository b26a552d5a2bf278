/**
 * A long chat against the model's context window: when the history would fill too much of it, the oldest turns are
 * left out of the model's input and a note says so. Activated skills' instructions are not part of the history (they
 * are re-attached whole in the instructions, `skill-content.ts`), so they always survive.
 *
 * What is done with the dropped turns: they are left out, with a note in the instructions. Summarising them with a
 * real model is not done yet (see the issue); the offline model could not summarise anyway.
 */
import type { ModelMessage } from 'ai';
import { countTokens } from '../skills/catalog';

/** Share of the context window the history may fill before older turns are left out. */
export const HISTORY_SHARE = 0.6;
/** After compaction the kept history fills at most this share, so the next turns do not compact again at once. */
export const KEEP_SHARE = 0.4;

export interface Compaction {
  messages: ModelMessage[];
  /** Messages left out (0: nothing was). */
  dropped: number;
}

/** A rough token count of one message: its JSON, which is close to what a provider is sent. */
export function messageTokens(message: ModelMessage): number {
  return countTokens(typeof message.content === 'string' ? message.content : JSON.stringify(message.content)) + 4;
}

/**
 * The history to send. Cuts only before a user message, so a tool call is never separated from its result; the
 * newest user message and everything after it are always kept, even when they alone are too long.
 */
export function compactHistory(
  messages: ModelMessage[],
  input: { contextWindow: number | undefined; reservedTokens: number },
): Compaction {
  const { contextWindow, reservedTokens } = input;
  if (!contextWindow || messages.length === 0) return { messages, dropped: 0 };
  const sizes = messages.map(messageTokens);
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total + reservedTokens <= contextWindow * HISTORY_SHARE) return { messages, dropped: 0 };

  const keepBudget = Math.max(0, contextWindow * KEEP_SHARE - reservedTokens);
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  let start = Math.max(0, lastUser);
  let kept = sizes.slice(start).reduce((a, b) => a + b, 0);
  // Walk back one user turn at a time while the next older turn still fits.
  for (let i = start - 1; i >= 0; i--) {
    if (messages[i]!.role !== 'user') continue;
    const turn = sizes.slice(i, start).reduce((a, b) => a + b, 0);
    if (kept + turn > keepBudget) break;
    kept += turn;
    start = i;
  }
  return start === 0 ? { messages, dropped: 0 } : { messages: messages.slice(start), dropped: start };
}

/** The line added to the instructions when turns were left out. */
export function compactionNote(dropped: number): string {
  return `\n\nearlier_messages_left_out: ${dropped} (the chat is longer than the model's context window allows; earlier messages were left out of this request. Activated skills' instructions above are complete.)`;
}
