'use client';
import { type ChatStatus, isToolUIPart } from 'ai';
import { type ReactNode, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
/**
 * The conversation, scrolled to the newest text while it streams unless the person has scrolled up to read.
 */
import { RefreshIcon } from '@/components/icons';
import type { ChatMessage, VersionGroup } from '@/server/chat/wire-types';
import { announcementFor } from './announce';
import { NO_EARLIER } from './earlier-messages';
import { Message } from './message';
import { EditMessageForm } from './message-versions';
import { PageLoader } from './page-loader';
import { captureAnchor, holdAnchor, restoreAnchor, type ScrollAnchor } from './scroll-anchor';
import type { EarlierHistory } from './use-earlier-messages';

/** How close to the bottom (px) still counts as "following" the stream. */
const FOLLOW_THRESHOLD = 96;

interface MessageListProps {
  messages: ChatMessage[];
  status: ChatStatus;
  onRegenerate: () => void;
  /** Asks for the rest of an answer that was cut short (interrupted by a restart, or stopped). */
  onContinue: () => void;
  empty: ReactNode;
  /** The groups of versions on this path, by the message they follow (`''`: the chat's start). */
  versions?: VersionGroup[];
  onSwitchVersion?: (parentId: string, version: number) => void;
  /** Sends an edited message again; the later answers become a version. */
  onEditMessage?: (messageId: string, text: string) => void;
  /** The messages shown above `messages` in a long chat, and how to load more of them. */
  history?: EarlierHistory;
  /** A search hit's message: scrolled to when the list first shows, and marked. */
  target?: string;
}

function textOf(message: ChatMessage): string {
  return message.parts
    .filter((p): p is { type: 'text'; text: string } => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
}

export function MessageList({
  messages,
  status,
  onRegenerate,
  onContinue,
  empty,
  versions,
  onSwitchVersion,
  onEditMessage,
  history,
  target,
}: MessageListProps) {
  const [editingId, setEditingId] = useState<string | null>(null);
  // After Cancel, focus goes back to the message's Edit button (keyboard users keep their place).
  const [refocusId, setRefocusId] = useState<string | null>(null);
  useEffect(() => {
    if (refocusId === null) return;
    const selector = `[data-message-id="${CSS.escape(refocusId)}"] [data-testid="message-edit"]`;
    scrollRef.current?.querySelector<HTMLButtonElement>(selector)?.focus();
    setRefocusId(null);
  }, [refocusId]);
  const groups = new Map((versions ?? []).map((g) => [g.parentId, g]));
  const scrollRef = useRef<HTMLDivElement>(null);
  const following = useRef(true);
  const busy = status === 'submitted' || status === 'streaming';
  const last = messages.at(-1);
  // Between sending and the first visible token there is nothing to read: show that the answer is on its way.
  const waiting =
    busy &&
    (last?.role === 'user' ||
      (last?.role === 'assistant' && !last.parts.some((p) => (p.type === 'text' && p.text) || isToolUIPart(p))));

  // Announced once an answer ends, not per token: the region stays empty while it streams.
  const [announcement, setAnnouncement] = useState('');
  const wasBusy = useRef(busy);
  useEffect(() => {
    if (wasBusy.current && !busy && last?.role === 'assistant') setAnnouncement(announcementFor(last));
    else if (busy) setAnnouncement('');
    wasBusy.current = busy;
  }, [busy, last]);
  // Present from the first render: a region added together with its text is often not read.
  const liveRegion = (
    <div className="visually-hidden" role="status" aria-live="polite" data-testid="answer-announcer">
      {announcement}
    </div>
  );

  // Runs after every render that changes the messages: keep the newest text in view while following.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && following.current && messages.length > 0) el.scrollTop = el.scrollHeight;
  }, [messages]);

  // A search hit opens the chat at its message, not at the end.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const hit = target ? el?.querySelector(`[data-message-id="${CSS.escape(target)}"]`) : null;
    if (!el || !hit) return;
    el.scrollTop += hit.getBoundingClientRect().top - el.getBoundingClientRect().top - 16;
    following.current = false;
  }, [target]);

  // A page arriving above what is read (older messages, or the gap filled above the tail) must not move
  // it: the first message in view is measured before the page shows and put back in the same place after.
  const earlier = history?.earlier ?? NO_EARLIER;
  const anchor = useRef<ScrollAnchor | null>(null);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const kept = anchor.current;
    anchor.current = null;
    if (!el || !kept || !earlier) return;
    restoreAnchor(el, kept);
    return holdAnchor(el, kept);
  }, [earlier]);
  const load = history?.load;
  const loadPage = useCallback(
    (direction: 'earlier' | 'later') =>
      load?.(direction, () => {
        const el = scrollRef.current;
        anchor.current = el ? captureAnchor(el) : null;
      }),
    [load],
  );
  const loadEarlier = useCallback(() => loadPage('earlier'), [loadPage]);
  const loadLater = useCallback(() => loadPage('later'), [loadPage]);
  const all = useMemo(
    () => (earlier.messages.length === 0 ? messages : [...earlier.messages, ...messages]),
    [earlier.messages, messages],
  );

  const onScroll = () => {
    const el = scrollRef.current;
    if (!el) return;
    following.current = el.scrollHeight - el.scrollTop - el.clientHeight < FOLLOW_THRESHOLD;
  };

  if (all.length === 0) {
    return (
      <div className="messages messages--empty" ref={scrollRef}>
        {empty}
        {liveRegion}
      </div>
    );
  }

  return (
    <div className="messages" ref={scrollRef} onScroll={onScroll} data-testid="message-list">
      <div className="messages__inner">
        {earlier.hasEarlier && history ? (
          <PageLoader
            direction="earlier"
            loading={history.loading === 'earlier'}
            error={history.loading === null ? history.error : null}
            onLoad={loadEarlier}
            root={scrollRef}
          />
        ) : null}
        {all.flatMap((message, index) => {
          const afterGap = earlier.gap && index === earlier.messages.length;
          const row =
            editingId === message.id && onEditMessage ? (
              <EditMessageForm
                key={message.id}
                initialText={textOf(message)}
                onCancel={() => {
                  setEditingId(null);
                  setRefocusId(message.id);
                }}
                onSave={(text) => {
                  setEditingId(null);
                  onEditMessage(message.id, text);
                }}
              />
            ) : (
              <Message
                key={message.id}
                message={message}
                streaming={busy && index === all.length - 1 && message.role === 'assistant'}
                // A group hangs after the message before it; before the first loaded one or a gap, that one is
                // not shown (a long chat's older page), so neither is the switcher until it is.
                group={
                  (index === 0 && earlier.hasEarlier) || afterGap ? undefined : groups.get(all[index - 1]?.id ?? '')
                }
                busy={busy}
                onSwitchVersion={onSwitchVersion}
                onEdit={message.role === 'user' && onEditMessage ? setEditingId : undefined}
                hit={message.id === target}
              />
            );
          if (!afterGap || !history) return [row];
          return [
            <PageLoader
              key="gap-loader"
              direction="later"
              loading={history.loading === 'later'}
              error={history.loading === null ? history.error : null}
              onLoad={loadLater}
              root={scrollRef}
            />,
            row,
          ];
        })}
        {waiting ? (
          <div className="message message--assistant message--pending" data-testid="message-pending">
            <span className="typing" role="status" aria-label="The assistant is answering">
              <span />
              <span />
              <span />
            </span>
          </div>
        ) : null}
        {!busy && last?.role === 'assistant' ? (
          <div className="message-actions">
            {last.metadata?.status === 'interrupted' || last.metadata?.status === 'aborted' ? (
              <button type="button" className="button button--ghost" onClick={onContinue} data-testid="continue-button">
                Continue
              </button>
            ) : null}
            <button
              type="button"
              className="button button--ghost"
              onClick={onRegenerate}
              data-testid="regenerate-button"
            >
              <RefreshIcon width={14} height={14} />
              Regenerate
            </button>
          </div>
        ) : null}
      </div>
      {liveRegion}
    </div>
  );
}
