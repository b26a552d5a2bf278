'use client';
/**
 * Editing a sent message, and the switcher between versions ("1/2") under an edited message or a
 * regenerated answer. The server keeps every version (`/api/chats/:id/versions`); these only ask for one.
 */
import { type FormEvent, type KeyboardEvent, useEffect, useRef, useState } from 'react';
import type { VersionGroup } from '@/server/chat/wire-types';

export function VersionSwitcher({
  group,
  disabled,
  onSwitch,
  what,
}: {
  group: VersionGroup;
  disabled: boolean;
  onSwitch: (parentId: string, version: number) => void;
  /** "message" or "answer", for the buttons' labels. */
  what: string;
}) {
  const { index, count, parentId } = group;
  return (
    <fieldset className="version-switcher" aria-label={`Versions of this ${what}`} data-testid="version-switcher">
      <button
        type="button"
        className="version-switcher__button"
        aria-label={`Previous version of this ${what}`}
        disabled={disabled || index <= 1}
        onClick={() => onSwitch(parentId, index - 1)}
        data-testid="version-prev"
      >
        ‹
      </button>
      <span className="version-switcher__label" data-testid="version-label" aria-live="polite">
        {index}/{count}
      </span>
      <button
        type="button"
        className="version-switcher__button"
        aria-label={`Next version of this ${what}`}
        disabled={disabled || index >= count}
        onClick={() => onSwitch(parentId, index + 1)}
        data-testid="version-next"
      >
        ›
      </button>
    </fieldset>
  );
}

export function EditMessageForm({
  initialText,
  onSave,
  onCancel,
}: {
  initialText: string;
  onSave: (text: string) => void;
  onCancel: () => void;
}) {
  const [text, setText] = useState(initialText);
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    if (text.trim()) onSave(text);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      onCancel();
    } else if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) submit();
  };
  return (
    <form className="message message--user message-edit" onSubmit={submit} data-testid="message-edit-form">
      <textarea
        ref={ref}
        className="message-edit__input"
        aria-label="Edit your message"
        value={text}
        rows={Math.min(10, Math.max(2, text.split('\n').length))}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        data-testid="message-edit-input"
      />
      <div className="message-edit__actions">
        <button type="button" className="button button--ghost" onClick={onCancel} data-testid="message-edit-cancel">
          Cancel
        </button>
        <button
          type="submit"
          className="button button--primary"
          disabled={!text.trim()}
          data-testid="message-edit-save"
        >
          Save &amp; resend
        </button>
      </div>
    </form>
  );
}
