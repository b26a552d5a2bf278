'use client';
import Link from 'next/link';
import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
/**
 * One chat in the sidebar: a link, plus rename (inline input) and delete (asks first, Cancel focused).
 *
 * One tab stop per chat: the link. Its two buttons are out of the tab order (tabIndex -1) and reached from the link
 * with the arrow keys (Right / Left), or used directly with F2 (rename) and Delete (aria-keyshortcuts says so);
 * Up / Down move between chats. Tab thus walks the list one chat at a time, and a pointer still sees both buttons.
 * After a rename or a delete prompt ends, focus goes back to the button (or key) that opened it.
 */
import { useChats } from '@/components/chats-context';
import { PencilIcon, TrashIcon } from '@/components/icons';
import { deleteChat, renameChat } from '@/components/lib/api';
import type { ChatSummary } from '@/server/chat/wire-types';

type Mode = 'view' | 'rename' | 'confirm-delete';
/** Where focus goes when the item is back in view mode. */
type Opener = 'link' | 'rename' | 'delete';

/** The item's focusable parts in arrow-key order. */
function partsOf(item: HTMLElement | null): HTMLElement[] {
  return item ? [...item.querySelectorAll<HTMLElement>('[data-roving]')] : [];
}

/** The link of the chat before (-1) or after (+1) this one. */
function neighbourLink(item: HTMLElement | null, step: 1 | -1): HTMLElement | null {
  const next = step === 1 ? item?.nextElementSibling : item?.previousElementSibling;
  return next?.querySelector<HTMLElement>('[data-testid="chat-link"]') ?? null;
}

export function ChatItem({
  chat,
  active,
  onDeleted,
  onChosen,
}: {
  chat: ChatSummary;
  active: boolean;
  onDeleted: (id: string) => void;
  /** The link was followed (the mobile drawer closes). */
  onChosen?: () => void;
}) {
  const { upsertChat } = useChats();
  const [mode, setMode] = useState<Mode>('view');
  const [draft, setDraft] = useState(chat.title);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  // Enter saves, and so does the blur that follows: one request per rename.
  const saving = useRef(false);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const itemRef = useRef<HTMLLIElement>(null);
  /** Set when a prompt opens from the keyboard or a button; focus returns there when it ends by key or button. */
  const opener = useRef<Opener | null>(null);
  const promptId = useId();

  useEffect(() => {
    if (mode === 'rename') inputRef.current?.select();
    // The safe choice first: Enter on a prompt that just opened must not delete.
    if (mode === 'confirm-delete') cancelRef.current?.focus();
    if (mode === 'view' && opener.current) {
      const target = opener.current;
      opener.current = null;
      itemRef.current?.querySelector<HTMLElement>(`[data-roving="${target}"]`)?.focus();
    }
  }, [mode]);

  const startRename = (from: Opener) => {
    opener.current = from;
    setDraft(chat.title);
    setError(null);
    setMode('rename');
  };

  const askDelete = (from: Opener) => {
    opener.current = from;
    setMode('confirm-delete');
  };

  /** Ends a prompt from the keyboard or a button: focus goes back to its opener. */
  const backToView = () => setMode('view');

  const onPartKey = (event: KeyboardEvent<HTMLElement>) => {
    const parts = partsOf(itemRef.current);
    const index = parts.indexOf(event.currentTarget);
    const from = (event.currentTarget.dataset.roving ?? 'link') as Opener;
    let target: HTMLElement | null | undefined = null;
    if (event.key === 'ArrowRight') target = parts[(index + 1) % parts.length];
    else if (event.key === 'ArrowLeft') target = parts[(index - 1 + parts.length) % parts.length];
    else if (event.key === 'ArrowDown') target = neighbourLink(itemRef.current, 1);
    else if (event.key === 'ArrowUp') target = neighbourLink(itemRef.current, -1);
    else if (event.key === 'F2') {
      event.preventDefault();
      startRename(from);
      return;
    } else if (event.key === 'Delete') {
      event.preventDefault();
      askDelete(from);
      return;
    }
    if (target) {
      event.preventDefault();
      target.focus();
    }
  };

  const onPromptKey = (event: KeyboardEvent<HTMLElement>) => {
    if (event.key === 'Escape') {
      // Only the prompt closes, not the drawer around it.
      event.preventDefault();
      event.stopPropagation();
      backToView();
    }
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
      backToView();
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
      event.stopPropagation();
      backToView();
    }
  };

  return (
    <li
      ref={itemRef}
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
          onBlur={(event) => {
            // Focus moved somewhere on purpose: leave it there once saved.
            if (event.relatedTarget) opener.current = null;
            void saveRename();
          }}
        />
      ) : (
        <Link
          href={`/chat/${chat.id}`}
          className="chat-item__link"
          aria-current={active ? 'page' : undefined}
          // Each prefetch renders a chat on the server; with a long list that is work nobody asked for.
          prefetch={false}
          data-testid="chat-link"
          data-roving="link"
          title={chat.title}
          aria-keyshortcuts="F2 Delete"
          onKeyDown={onPartKey}
          onClick={onChosen}
        >
          {chat.title}
        </Link>
      )}
      {mode === 'view' ? (
        <span className="chat-item__actions">
          <button
            type="button"
            className="icon-button icon-button--small"
            tabIndex={-1}
            data-roving="rename"
            onKeyDown={onPartKey}
            onClick={() => startRename('rename')}
            aria-label={`Rename "${chat.title}"`}
            title="Rename"
            data-testid="chat-rename-button"
          >
            <PencilIcon width={14} height={14} />
          </button>
          <button
            type="button"
            className="icon-button icon-button--small"
            tabIndex={-1}
            data-roving="delete"
            onKeyDown={onPartKey}
            onClick={() => askDelete('delete')}
            aria-label={`Delete "${chat.title}"`}
            title="Delete"
            data-testid="chat-delete-button"
          >
            <TrashIcon width={14} height={14} />
          </button>
        </span>
      ) : null}
      {mode === 'confirm-delete' ? (
        <div
          className="chat-item__confirm"
          role="alertdialog"
          aria-labelledby={promptId}
          data-testid="chat-delete-dialog"
          onKeyDown={onPromptKey}
        >
          <span id={promptId}>Delete "{chat.title}"?</span>
          <button
            type="button"
            className="button button--danger button--small"
            onClick={() => void confirmDelete()}
            disabled={pending}
            data-testid="chat-delete-confirm"
          >
            Delete
          </button>
          <button
            ref={cancelRef}
            type="button"
            className="button button--ghost button--small"
            onClick={backToView}
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
