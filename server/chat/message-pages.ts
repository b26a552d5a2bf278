/**
 * A long chat a page at a time. The chat page renders only the newest messages (at most
 * `FIRST_PAGE_LIMIT` messages and about `PAGE_BUDGET_BYTES` of message JSON, which appears twice in the HTML:
 * rendered and as RSC data); older pages come from `GET /api/chats/:id/messages`. A search hit opens the chat at its message: a
 * window around it above the newest page, with a gap between them until it is loaded. What the model is sent does
 * not depend on any of this: a turn reads the whole history from the database.
 */
import { z } from 'zod';
import type { MessageCursor } from '../db';
import { AppError } from '../errors';
import type { ChatMessage, ChatWindow, MessagePage } from './wire-types';

/** Messages in one page loaded on scroll (and the route's default). */
export const PAGE_LIMIT = 50;
/**
 * Messages the chat page renders at first: enough to fill the view and some scrolling, few enough that rendering
 * them (Markdown, highlighted code) stays a small part of the first paint; older pages load as the person scrolls.
 */
export const FIRST_PAGE_LIMIT = 30;
/** The most one request may ask for. */
export const MAX_PAGE_LIMIT = 200;
/** Message JSON in one page; a page always holds at least one message, however large. */
export const PAGE_BUDGET_BYTES = 48 * 1024;
/** Messages shown before a search hit, so it does not open at the top edge without context. */
const AROUND_CONTEXT = 2;
/** The window around a search hit is smaller than a page: it shares the HTML with the newest page. */
const AROUND_LIMIT = 20;

/**
 * Keeps `items` while their sizes fit in `budget`, from the newest end (the tail, an older page: the end nearest
 * the tail) or the oldest end (a window that starts at a message). At least one is kept.
 */
export function withinBudget<T>(
  items: T[],
  sizeOf: (item: T) => number,
  budget: number,
  keep: 'newest' | 'oldest',
): { kept: T[]; cut: boolean } {
  const order = keep === 'newest' ? [...items].reverse() : items;
  let used = 0;
  let count = 0;
  for (const item of order) {
    used += sizeOf(item);
    if (count > 0 && used > budget) break;
    count += 1;
  }
  if (count === items.length) return { kept: items, cut: false };
  return { kept: keep === 'newest' ? items.slice(items.length - count) : items.slice(0, count), cut: true };
}

/** The size a message adds to a page: its JSON. */
export function messageBytes(message: ChatMessage): number {
  return JSON.stringify(message).length;
}

/** A page with the budget applied, from the end the cursor reads towards. */
export function budgetPage(page: MessagePage, cursor: MessageCursor, budget = PAGE_BUDGET_BYTES): MessagePage {
  const keep = cursor.kind === 'last' || cursor.kind === 'before' ? 'newest' : 'oldest';
  const { kept, cut } = withinBudget(page.messages, messageBytes, budget, keep);
  if (!cut) return page;
  return keep === 'newest'
    ? { messages: kept, hasEarlier: true, hasLater: page.hasLater }
    : { messages: kept, hasEarlier: page.hasEarlier, hasLater: true };
}

const messageIdSchema = z.string().min(1).max(100);

/** `GET /api/chats/:id/messages?before=<messageId>|after=<messageId>&limit=<n>` (neither: the newest page). */
export const messagePageQuerySchema = z
  .object({
    before: messageIdSchema.optional(),
    after: messageIdSchema.optional(),
    limit: z.coerce.number().int().min(1).max(MAX_PAGE_LIMIT).default(PAGE_LIMIT),
  })
  .strict()
  .refine((q) => q.before === undefined || q.after === undefined, { message: 'give before or after, not both' });

/** The query string as a cursor and a limit; 400 `bad_request:messages` saying what is wrong. */
export function parseMessagePageQuery(params: URLSearchParams): { cursor: MessageCursor; limit: number } {
  const raw: Record<string, string> = {};
  for (const [key, value] of params) {
    if (key in raw) throw new AppError('bad_request:messages', `Give "${key}" once`);
    raw[key] = value;
  }
  const parsed = messagePageQuerySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(/*turbopackIgnore: true*/ '.')}: ` : '';
    throw new AppError('bad_request:messages', `Invalid page of messages: ${where}${issue?.message}`);
  }
  const { before, after, limit } = parsed.data;
  const cursor: MessageCursor = before
    ? { kind: 'before', id: before }
    : after
      ? { kind: 'after', id: after }
      : { kind: 'last' };
  return { cursor, limit };
}

/** Reads a page (budget applied); null when the cursor's message is not in the chat. */
export type PageLoader = (cursor: MessageCursor, limit: number) => Promise<MessagePage | null>;

/** Where the window above the newest page starts: around a message (a search hit), or after one (a version switch). */
export type WindowStart = { around: string } | { after: string };

/**
 * The newest page and, when `start` is given and not already in it, a window of messages from `start` on above it
 * (`earlier`), with `gap` when messages between the two are left out. A start that is not in the chat is ignored.
 */
export async function loadChatWindow(load: PageLoader, start?: WindowStart): Promise<ChatWindow> {
  const tail = (await load({ kind: 'last' }, FIRST_PAGE_LIMIT)) ?? { messages: [], hasEarlier: false, hasLater: false };
  const plain: ChatWindow = {
    messages: tail.messages,
    earlier: { messages: [], hasEarlier: tail.hasEarlier, gap: false },
  };
  if (!start || !tail.hasEarlier) return plain;
  let cursor: MessageCursor;
  if ('after' in start) cursor = { kind: 'after', id: start.after };
  else {
    const context = await load({ kind: 'before', id: start.around }, AROUND_CONTEXT);
    if (!context) return plain;
    cursor = { kind: 'from', id: context.messages[0]?.id ?? start.around };
  }
  const window = await load(cursor, 'after' in start ? PAGE_LIMIT : AROUND_LIMIT);
  const first = window?.messages[0];
  const tailIds = new Set(tail.messages.map((m) => m.id));
  if (!window || !first || tailIds.has(first.id)) return plain;
  const meets = window.messages.findIndex((m) => tailIds.has(m.id));
  if (meets > 0) {
    return {
      messages: tail.messages,
      earlier: { messages: window.messages.slice(0, meets), hasEarlier: window.hasEarlier, gap: false },
    };
  }
  const last = window.messages.at(-1)!;
  const next = window.hasLater ? await load({ kind: 'after', id: last.id }, 1) : null;
  const gap = next?.messages[0]?.id !== tail.messages[0]?.id;
  return { messages: tail.messages, earlier: { messages: window.messages, hasEarlier: window.hasEarlier, gap } };
}
