'use client';
/**
 * Loads a long chat's older pages (and fills the gap below a search hit's window) into the messages shown
 * above `useChat`'s tail. One load at a time; a load that returns after the shown messages were replaced (a version
 * switch, an edit of an older message) is dropped.
 */
import { useCallback, useRef, useState } from 'react';
import { loadMessagePage } from '@/components/lib/api';
import type { ChatMessage, EarlierMessages } from '@/server/chat/wire-types';
import { firstShownId, withLaterPage, withOlderPage } from './earlier-messages';

export interface EarlierHistory {
  earlier: EarlierMessages;
  loading: 'earlier' | 'later' | null;
  error: string | null;
  /**
   * Loads the page above the first message shown (`'earlier'`) or the one below the last earlier message, towards
   * the tail (`'later'`). `beforeShow` runs just before the page appears, so the list can keep its scroll place.
   */
  load(direction: 'earlier' | 'later', beforeShow?: () => void): void;
  replace(earlier: EarlierMessages): void;
}

export function useEarlierMessages(chatId: string, initial: EarlierMessages, tail: ChatMessage[]): EarlierHistory {
  const [earlier, setEarlier] = useState(initial);
  const [loading, setLoading] = useState<'earlier' | 'later' | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Read when a load starts and when it lands, not at render: the callbacks stay the same across renders.
  const current = useRef({ earlier, tail });
  current.current = { earlier, tail };
  const generation = useRef(0);
  const running = useRef(false);

  const load = useCallback(
    (direction: 'earlier' | 'later', beforeShow?: () => void) => {
      if (running.current) return;
      const { earlier: shown, tail: shownTail } = current.current;
      const cursor =
        direction === 'earlier' ? firstShownId(shown, shownTail) : shown.gap ? shown.messages.at(-1)?.id : undefined;
      if (cursor === undefined) return;
      running.current = true;
      const started = generation.current;
      setLoading(direction);
      setError(null);
      loadMessagePage(chatId, direction === 'earlier' ? { before: cursor } : { after: cursor })
        .then((page) => {
          if (generation.current !== started) return;
          beforeShow?.();
          const now = current.current;
          const next =
            direction === 'earlier' ? withOlderPage(now.earlier, page) : withLaterPage(now.earlier, page, now.tail);
          current.current = { ...now, earlier: next };
          setEarlier(next);
        })
        .catch((e: unknown) => {
          if (generation.current === started) setError(e instanceof Error ? e.message : 'Could not load messages');
        })
        .finally(() => {
          if (generation.current !== started) return;
          running.current = false;
          setLoading(null);
        });
    },
    [chatId],
  );

  const replace = useCallback((next: EarlierMessages) => {
    generation.current += 1;
    running.current = false;
    current.current = { ...current.current, earlier: next };
    setEarlier(next);
    setLoading(null);
    setError(null);
  }, []);

  return { earlier, loading, error, load, replace };
}
