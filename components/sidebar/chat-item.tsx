'use client';
import Link from 'next/link';
import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
/** One chat in the sidebar: a link, plus rename (inline input) and delete (asks first). */
import { useChats } from '@/components/chats-context';
import { PencilIcon, TrashIcon } from '@/components/icons';
import { deleteChat, renameChat } from '@/components/lib/api';
import type { ChatSummary } from '@/server/chat/types';

type Mode = 'view' | 'rename' | 'confirm-delete';

export function ChatItem({
  chat,
  active,
  onDeleted,
}: {
  chat: ChatSummary;
  active: boolean;
  onDeleted: (id: string) => void;
}) {
  const { upsertChat } = useChats();
  const [mode, setMode] = useState<Mode>('view');
  const [draft, setDraft] = useState(chat.title);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  // Enter saves, and so does the blur that follows: one request per rename.
  const saving = useRef(false);
  const deleteRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (mode === 'rename') inputRef.current?.select();
    if (mode === 'confirm-delete') deleteRef.current?.focus();
  }, [mode]);

  const startRename = () => {
    setDraft(chat.title);
    setError(null);
    setMode('rename');
  };

  const saveRename = async () => {
    if (saving.current) return;
    const title = draft.trim();
    if (!title || title === chat.title) {
      setMode('view');
      return;
    }
    saving.current = true;
    setPending(true);
    try {
      // Show the new title at once; the server's answer (e.g. trimmed or capped) replaces it.
      upsertChat({ ...chat, title });
      upsertChat(await renameChat(chat.id, title));
      setMode('view');
    } catch (e) {
      upsertChat(chat);
      setError(e instanceof Error ? e.message : 'Could not rename the chat');
    } finally {
      saving.current = false;
      setPending(false);
    }
  };

  const confirmDelete = async () => {
    setPending(true);
    try {
      await deleteChat(chat.id);
      onDeleted(chat.id);
    } catch (e) {
      setError(e instanceof Error ? e.message : 'Could not delete the chat');
      setMode('view');
    } finally {
      setPending(false);
    }
  };

  const onRenameKey = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      void saveRename();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      setMode('view');
    }
  };

  return (
    <li
      className={`chat-item${active ? ' chat-item--active' : ''}`}
      data-testid="chat-item"
      data-chat-id={chat.id}
      data-mode={mode}
    >
      {mode === 'rename' ? (
        <input
          ref={inputRef}
          className="chat-item__input"
          data-testid="chat-rename-input"
          aria-label="Chat title"
          value={draft}
          maxLength={200}
          // readOnly, not disabled: disabling the focused field would blur it mid-save.
          readOnly={pending}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={onRenameKey}
          onBlur={() => void saveRename()}
        />
      ) : (
        <Link
          href={`/chat/${chat.id}`}
          className="chat-item__link"
          aria-current={active ? 'page' : undefined}
          // Each prefetch renders a chat on the server; with a long list that is work nobody asked for.
          prefetch={false}
          data-testid="chat-link"
          title={chat.title}
        >
          {chat.title}
        </Link>
      )}
      {mode === 'view' ? (
        <span className="chat-item__actions">
          <button
            type="button"
            className="icon-button icon-button--small"
            onClick={startRename}
            aria-label={`Rename "${chat.title}"`}
            title="Rename"
            data-testid="chat-rename-button"
          >
            <PencilIcon width={14} height={14} />
          </button>
          <button
            type="button"
            className="icon-button icon-button--small"
            onClick={() => setMode('confirm-delete')}
            aria-label={`Delete "${chat.title}"`}
            title="Delete"
            data-testid="chat-delete-button"
          >
            <TrashIcon width={14} height={14} />
          </button>
        </span>
      ) : null}
      {mode === 'confirm-delete' ? (
        <div className="chat-item__confirm">
          <span>Delete this chat?</span>
          <button
            ref={deleteRef}
            type="button"
            className="button button--danger button--small"
            onClick={() => void confirmDelete()}
            disabled={pending}
            data-testid="chat-delete-confirm"
          >
            Delete
          </button>
          <button
            type="button"
            className="button button--ghost button--small"
            onClick={() => setMode('view')}
            data-testid="chat-delete-cancel"
          >
            Cancel
          </button>
        </div>
      ) : null}
      {error ? (
        <p className="chat-item__error" role="alert">
          {error}
        </p>
      ) : null}
    </li>
  );
}
