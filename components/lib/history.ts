'use client';
/**
 * The new-chat screen lives at `/`; once its first message creates the chat, the address becomes `/chat/:id` through
 * `history.replaceState` so the answer keeps streaming into the same components. Next keeps the `/` page tree for
 * that history entry, so coming back to it with Back or Forward would show whatever the new-chat screen holds by
 * then. Such entries are marked, and a traversal to one loads the chat from the server instead.
 */
import { useEffect } from 'react';

const MARK = 'skillchatNewChat';

/** Switches the address to the chat without a navigation (Next's router follows: `usePathname` updates). */
export function readdressNewChat(chatId: string): void {
  // Only our own key: Next copies its internal state into this object; passing its state back would bypass that.
  window.history.replaceState({ [MARK]: chatId }, '', `/chat/${encodeURIComponent(chatId)}`);
}

function isReaddressed(state: unknown): boolean {
  return typeof state === 'object' && state !== null && MARK in state;
}

/** Back or Forward onto a re-addressed entry: render that chat from the server. */
export function useReloadOnReaddressedTraversal(): void {
  useEffect(() => {
    const onPopState = (event: PopStateEvent) => {
      if (isReaddressed(event.state)) window.location.reload();
    };
    window.addEventListener('popstate', onPopState);
    return () => window.removeEventListener('popstate', onPopState);
  }, []);
}
