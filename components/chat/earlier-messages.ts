/**
 * The messages shown above `useChat`'s tail in a long chat. The tail is the page the server rendered (and
 * what streams into it); older pages arrive above it as the person scrolls up, and a search hit's window sits above
 * it with a gap until the messages between are loaded. These functions say how each arrival changes what is shown;
 * `use-earlier-messages.ts` fetches.
 */
import type { ChatMessage, ChatWindow, EarlierMessages, MessagePage } from '@/server/chat/wire-types';

export const NO_EARLIER: EarlierMessages = { messages: [], hasEarlier: false, gap: false };

/** The message to ask for older pages before: the first one shown. */
export function firstShownId(earlier: EarlierMessages, tail: ChatMessage[]): string | undefined {
  return earlier.messages[0]?.id ?? tail[0]?.id;
}

/** An older page (asked for before the first message shown) goes on top. */
export function withOlderPage(earlier: EarlierMessages, page: MessagePage): EarlierMessages {
  const shown = new Set(earlier.messages.map((m) => m.id));
  return {
    messages: [...page.messages.filter((m) => !shown.has(m.id)), ...earlier.messages],
    hasEarlier: page.hasEarlier,
    gap: earlier.gap,
  };
}

/**
 * A page after the last earlier message (filling the gap) goes below them, up to the tail's first message: once it
 * is reached the gap is closed.
 */
export function withLaterPage(earlier: EarlierMessages, page: MessagePage, tail: ChatMessage[]): EarlierMessages {
  const inTail = new Set(tail.map((m) => m.id));
  const meets = page.messages.findIndex((m) => inTail.has(m.id));
  const added = meets === -1 ? page.messages : page.messages.slice(0, meets);
  return {
    messages: [...earlier.messages, ...added],
    hasEarlier: earlier.hasEarlier,
    gap: meets === -1 && page.hasLater,
  };
}

export interface Shown {
  earlier: EarlierMessages;
  tail: ChatMessage[];
}

/**
 * Editing a message of an older page: `useChat` edits only messages it holds, so the edited message becomes the
 * tail's first (everything after it is replaced by the new answer, and kept on the server as a version). Null when
 * the message is not above the tail.
 */
export function movedForEdit(earlier: EarlierMessages, messageId: string): Shown | null {
  const at = earlier.messages.findIndex((m) => m.id === messageId);
  if (at === -1) return null;
  return {
    earlier: { messages: earlier.messages.slice(0, at), hasEarlier: earlier.hasEarlier, gap: false },
    tail: [earlier.messages[at]!],
  };
}

/**
 * After a version switch at `parentId` (`''`: the chat's start): what is shown up to the parent stays, what follows
 * it comes from the server's window (`earlier` starts right after the parent when the parent is not in the newest
 * page; otherwise the newest page holds the parent and all after it). When that cannot be stitched (the parent is
 * not shown, or it would leave two gaps), the server's newest page is shown alone.
 */
export function afterSwitch(shown: Shown, parentId: string, window: ChatWindow): Shown {
  const { earlier, tail } = shown;
  const reset: Shown = { earlier: { messages: [], hasEarlier: true, gap: false }, tail: window.messages };
  // What follows the parent on the switched path.
  let after: { earlier: ChatMessage[]; gap: boolean; tail: ChatMessage[] };
  if (window.earlier.messages.length > 0) {
    after = { earlier: window.earlier.messages, gap: window.earlier.gap, tail: window.messages };
  } else {
    const at = window.messages.findIndex((m) => m.id === parentId);
    after = { earlier: [], gap: false, tail: at === -1 ? window.messages : window.messages.slice(at + 1) };
  }
  if (parentId === '') {
    return {
      earlier: { messages: after.earlier, hasEarlier: false, gap: after.gap },
      tail: after.tail,
    };
  }
  const inEarlier = earlier.messages.findIndex((m) => m.id === parentId);
  if (inEarlier !== -1) {
    return {
      earlier: {
        messages: [...earlier.messages.slice(0, inEarlier + 1), ...after.earlier],
        hasEarlier: earlier.hasEarlier,
        gap: after.gap,
      },
      tail: after.tail,
    };
  }
  const inTail = tail.findIndex((m) => m.id === parentId);
  if (inTail === -1) return reset;
  const kept = tail.slice(0, inTail + 1);
  if (!after.gap) return { earlier, tail: [...kept, ...after.earlier, ...after.tail] };
  if (earlier.gap) return reset;
  return {
    earlier: { messages: [...earlier.messages, ...kept, ...after.earlier], hasEarlier: earlier.hasEarlier, gap: true },
    tail: after.tail,
  };
}
