/**
 * A long chat against the model's context window: when the history would fill too much of it, the oldest turns
 * leave the model's input. A real model summarises them (`summary.ts`) and the summary takes their place; the
 * offline model, which cannot summarise, drops them with a note. Activated skills' instructions are not part of the
 * history (they are re-attached whole in the instructions, after the summary: `skill-content.ts`), so they always
 * survive.
 *
 * A summary is stored with the answer of the turn that wrote it (its `data-compaction` part, keyed by the id of the
 * last message it covers), and later turns reuse it until what follows it no longer fits; then the next turns are
 * folded into it by one more call.
 */
import type { ModelMessage } from 'ai';
import { countTokens } from '../skills/catalog/catalog';
import { SUMMARY_MAX_TOKENS } from './summary';
import type { ChatMessage } from './wire-types';

/** Share of the context window the history may fill before older turns are left out. */
export const HISTORY_SHARE = 0.6;
/** After compaction the kept history fills at most this share, so the next turns do not compact again at once. */
export const KEEP_SHARE = 0.4;

export interface Compaction {
  messages: ModelMessage[];
  /** Messages left out (0: nothing was). */
  dropped: number;
}

/** A file part's tokens, roughly: a PDF page of text and pictures is 1,500-3,000 tokens and some 100 KB. */
export const FILE_TOKENS_PER_KB = 20;

function base64Bytes(text: string): number {
  const start = text.indexOf(',') + 1;
  let end = text.length;
  while (end > start && text[end - 1] === '=') end--;
  return Math.floor(((end - start) * 3) / 4);
}

/** Bytes of a file part's data (any of the AI SDK's shapes): base64 and data URLs count as the bytes they encode. */
function fileBytes(data: unknown): number {
  if (data instanceof URL) return data.protocol === 'data:' ? base64Bytes(data.href) : 0;
  if (typeof data === 'string') return base64Bytes(data);
  if (data instanceof Uint8Array) return data.length;
  if (data instanceof ArrayBuffer) return data.byteLength;
  if (data !== null && typeof data === 'object') {
    const tagged = data as { url?: unknown; data?: unknown };
    return fileBytes(tagged.url ?? tagged.data);
  }
  return 0;
}

/**
 * A rough token count of one message: its JSON, which is close to what a provider is sent, with a file's data
 * counted by its size (its base64 is not what the model reads, and counting it would take long).
 */
export function messageTokens(message: ModelMessage): number {
  if (typeof message.content === 'string') return countTokens(message.content) + 4;
  let files = 0;
  const content = message.content.map((part) => {
    if (part.type !== 'file') return part;
    files += Math.ceil((fileBytes(part.data) / 1024) * FILE_TOKENS_PER_KB);
    return { ...part, data: '' };
  });
  return countTokens(JSON.stringify(content)) + files + 4;
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

/** A summary of a chat's first messages, up to and including the message `through`. */
export interface ConversationSummary {
  summary: string;
  through: string;
}

export interface ConversationCompaction extends Compaction {
  /** The summary that replaces the left-out messages; none: they were only dropped (offline model, or it failed). */
  summary?: ConversationSummary;
  /** The summary was written on this turn (false: an earlier answer's was reused). */
  summarisedNow?: boolean;
}

/** Writes the summary of `messages`, folding in `previous` (the summary of what came before them) when given. */
export type Summarise = (input: { previous?: string; messages: ModelMessage[] }) => Promise<string>;

/** The newest summary an earlier answer of the chat wrote, if any. */
export function latestSummary(history: readonly ChatMessage[]): ConversationSummary | null {
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i]!;
    if (message.role !== 'assistant') continue;
    for (const part of message.parts) {
      if (part.type === 'data-compaction' && part.data.summary && part.data.through) {
        return { summary: part.data.summary, through: part.data.through };
      }
    }
  }
  return null;
}

/**
 * Index of the `n`-th (0-based) user message, or the length when there are fewer. Every user UI message converts
 * to exactly one user model message, so user messages are where the two lists line up.
 */
function nthUser(messages: readonly { role: string }[], n: number): number {
  let seen = 0;
  for (let i = 0; i < messages.length; i++) {
    if (messages[i]!.role !== 'user') continue;
    if (seen === n) return i;
    seen++;
  }
  return messages.length;
}

const usersBefore = (messages: readonly { role: string }[], end: number) =>
  messages.slice(0, end).filter((m) => m.role === 'user').length;

/**
 * The history to send for one turn. `history` are the chat's messages `converted` was made from, in order. Without
 * `summarise` (the offline model) this is `compactHistory`. With it, the left-out messages are replaced by a summary:
 * the earlier answers' newest one while the messages after it still fit, otherwise a new one (the old one extended).
 * A failed summary falls back to dropping, reported through `onError`.
 */
export async function compactConversation(input: {
  history: readonly ChatMessage[];
  converted: ModelMessage[];
  contextWindow: number | undefined;
  reservedTokens: number;
  summarise: Summarise | null;
  onError?: (error: unknown) => void;
}): Promise<ConversationCompaction> {
  const { history, converted, contextWindow, reservedTokens, summarise } = input;
  const plain = compactHistory(converted, { contextWindow, reservedTokens });
  if (plain.dropped === 0 || !summarise) return plain;

  const modelIndexOf = (uiIndex: number) => nthUser(converted, usersBefore(history, uiIndex));
  const previous = latestSummary(history);
  const previousEnd = previous ? history.findIndex((m) => m.id === previous.through) : -1;
  let from = 0;
  let cut: number;
  if (previous && previousEnd >= 0 && history[previousEnd + 1]?.role === 'user') {
    // What follows the earlier summary: while it fits beside the summary, that summary is reused as it is.
    const tailStart = modelIndexOf(previousEnd + 1);
    const tail = converted.slice(tailStart);
    const more = compactHistory(tail, {
      contextWindow,
      reservedTokens: reservedTokens + countTokens(previous.summary),
    });
    if (more.dropped === 0) {
      return { messages: tail, dropped: tailStart, summary: previous, summarisedNow: false };
    }
    from = tailStart;
    cut = tailStart + more.dropped;
  } else {
    // Room for the summary that is about to be written.
    cut = compactHistory(converted, { contextWindow, reservedTokens: reservedTokens + SUMMARY_MAX_TOKENS }).dropped;
  }
  const through = history[nthUser(history, usersBefore(converted, cut)) - 1];
  if (!through) return plain;
  try {
    const summary = await summarise({
      ...(from > 0 && previous ? { previous: previous.summary } : {}),
      messages: converted.slice(from, cut),
    });
    return {
      messages: converted.slice(cut),
      dropped: cut,
      summary: { summary, through: through.id },
      summarisedNow: true,
    };
  } catch (error) {
    input.onError?.(error);
    return plain;
  }
}
