'use client';
/**
 * The sidebar's search box: while it holds words, the chats whose title or messages match (`GET /api/chats?q=`)
 * replace the list given as children. Self-contained so the sidebar around it can change shape freely.
 */
import Link from 'next/link';
import { type ReactNode, useEffect, useId, useState } from 'react';
import { searchChats } from '@/components/lib/api';
import type { ChatSummary } from '@/server/chat/wire-types';

/** Typing pauses shorter than this do not send a request. */
const DEBOUNCE_MS = 200;

export function ChatSearch({ children, activeChatId }: { children: ReactNode; activeChatId?: string | null }) {
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<ChatSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const inputId = useId();
  const searching = query.trim() !== '';

  useEffect(() => {
    if (!searching) {
      setResults(null);
      setError(null);
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      searchChats(query, controller.signal)
        .then((chats) => {
          setResults(chats);
          setError(null);
        })
        .catch((e: unknown) => {
          if (!controller.signal.aborted) setError(e instanceof Error ? e.message : 'Search failed');
        });
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [query, searching]);

  return (
    <>
      <div className="chat-search">
        <label htmlFor={inputId} className="visually-hidden">
          Search chats
        </label>
        <input
          id={inputId}
          type="search"
          className="chat-search__input"
          placeholder="Search chats"
          value={query}
          maxLength={200}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') setQuery('');
          }}
          data-testid="chat-search"
        />
      </div>
      {!searching ? (
        children
      ) : error ? (
        <p className="sidebar__empty" role="alert">
          {error}
        </p>
      ) : results === null ? (
        <p className="sidebar__empty">Searching…</p>
      ) : results.length === 0 ? (
        <p className="sidebar__empty" data-testid="chat-search-empty">
          No chats match.
        </p>
      ) : (
        <ul className="chat-list" data-testid="chat-search-results" aria-label="Search results">
          {results.map((chat) => (
            <li key={chat.id} className={`chat-item${chat.id === activeChatId ? ' chat-item--active' : ''}`}>
              <Link
                // A message hit opens the chat at that message (however far up a long chat it is).
                href={
                  chat.messageId ? `/chat/${chat.id}?message=${encodeURIComponent(chat.messageId)}` : `/chat/${chat.id}`
                }
                className="chat-item__link chat-search__hit"
                data-testid="chat-search-hit"
              >
                <span className="chat-search__title">{chat.title}</span>
                {chat.snippet ? <span className="chat-search__snippet">{chat.snippet}</span> : null}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
