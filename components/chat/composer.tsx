'use client';
import { type FormEvent, type KeyboardEvent, useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
/**
 * The message box. Enter sends, Shift+Enter adds a line. A leading `/` opens the skill menu; choosing a skill writes
 * `/name ` so the rest of the line becomes the request to that skill.
 */
import { AttachmentChips } from '@/components/files/attachment-chips';
import { useAttachments } from '@/components/files/use-attachments';
import { SendIcon, StopIcon } from '@/components/icons';
import { useHydrated } from '@/components/lib/use-hydrated';
import type { Attachment, SkillSummary } from '@/server/chat/wire-types';
import { COMPOSER_INPUT_ID } from './composer-ids';
import { SkillPrefsDialog } from './skill-prefs-dialog';
import { SlashMenu } from './slash-menu';
import { useSkillSuggestions } from './use-skill-suggestions';

interface ComposerProps {
  busy: boolean;
  /** Resolves false when the message could not be sent, so the text is put back. */
  onSend: (text: string, attachments: Attachment[]) => Promise<boolean>;
  /** Stores a file in the chat workspace (button, drop, paste); absent: no attachments. */
  onUpload?: (file: File) => Promise<Attachment>;
  onStop: () => void;
  autoFocus?: boolean;
  /** Text put into the box from outside (a starter suggestion); a new object each time, replacing what is there. */
  draft?: { text: string } | null;
}

/** `/` followed by a partial skill name and nothing else: the menu's query. */
const SLASH_QUERY = /^\/(\S*)$/;

export function Composer({ busy, onSend, onStop, onUpload, autoFocus, draft }: ComposerProps) {
  // False in the server's HTML, true once React has attached the form's handlers: a file chosen before that is lost,
  // so the e2e tests wait for `data-hydrated` before they use the form.
  const hydrated = useHydrated();
  const [value, setValue] = useState('');
  const files = useAttachments(onUpload);
  const fileInputRef = useRef<HTMLInputElement>(null);
  const [dismissedFor, setDismissedFor] = useState<string | null>(null);
  const [activeIndex, setActiveIndex] = useState(0);
  const [sending, setSending] = useState(false);
  const textareaRef = useRef<HTMLTextAreaElement>(null);
  const caretToEnd = useRef(false);
  const listboxId = useId();
  const hintId = useId();
  const optionId = (index: number) => `${listboxId}-option-${index}`;

  const match = SLASH_QUERY.exec(value);
  const query = match && dismissedFor !== value ? (match[1] ?? '') : null;
  // "Manage skills…": the dialog, and a revision so the menu fetches again once it closes.
  const [prefsOpen, setPrefsOpen] = useState(false);
  const [prefsRevision, setPrefsRevision] = useState(0);
  const { skills, loading, error } = useSkillSuggestions(query, prefsRevision);
  const menuOpen = query !== null;

  // A new query means a new list: highlight its first (best) option.
  const [lastQuery, setLastQuery] = useState(query);
  if (lastQuery !== query) {
    setLastQuery(query);
    setActiveIndex(0);
  }
  // The options are the skills, then "Manage skills…" (index skills.length) when there is at least one skill.
  const optionCount = skills.length > 0 ? skills.length + 1 : 0;
  const active = Math.min(activeIndex, Math.max(optionCount - 1, 0));

  useLayoutEffect(() => {
    const el = textareaRef.current;
    if (el && caretToEnd.current) {
      caretToEnd.current = false;
      el.focus();
      el.setSelectionRange(el.value.length, el.value.length);
    }
  });

  useEffect(() => {
    if (!draft) return;
    setValue(draft.text);
    caretToEnd.current = true;
  }, [draft]);

  const choose = (skill: SkillSummary) => {
    setValue(`/${skill.name} `);
    caretToEnd.current = true;
  };

  const submit = async () => {
    const text = value.trim();
    if (!text || busy || sending || files.uploading) return;
    setValue('');
    setSending(true);
    const attachments = files.attached;
    files.clear();
    try {
      const sent = await onSend(text, attachments);
      if (!sent) setValue((current) => current || text);
    } finally {
      setSending(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // Keys that confirm an IME composition (Japanese, Chinese, ...) must not send or pick.
    if (event.nativeEvent.isComposing) return;
    if (menuOpen) {
      const count = optionCount;
      if (event.key === 'Escape') {
        event.preventDefault();
        setDismissedFor(value);
        return;
      }
      if (count > 0) {
        if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
          event.preventDefault();
          const step = event.key === 'ArrowDown' ? 1 : -1;
          setActiveIndex((active + step + count) % count);
          return;
        }
        if ((event.key === 'Enter' && !event.shiftKey) || (event.key === 'Tab' && !event.shiftKey)) {
          event.preventDefault();
          const skill = skills[active];
          if (skill) choose(skill);
          else setPrefsOpen(true);
          return;
        }
      }
    }
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      void submit();
    }
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void submit();
  };

  const showMenu = menuOpen && (skills.length > 0 || !loading || error !== null);
  return (
    <form
      className="composer"
      data-testid="composer"
      data-hydrated={hydrated || undefined}
      onSubmit={onSubmit}
      {...files.dropProps}
      onPaste={files.onPaste}
    >
      {showMenu ? (
        <SlashMenu
          id={listboxId}
          skills={skills}
          activeIndex={active}
          loading={loading}
          error={error}
          optionId={optionId}
          onHover={setActiveIndex}
          onChoose={choose}
          onSettings={() => setPrefsOpen(true)}
        />
      ) : null}
      {prefsOpen ? (
        <SkillPrefsDialog
          onClose={() => {
            setPrefsOpen(false);
            setPrefsRevision((r) => r + 1);
            textareaRef.current?.focus();
          }}
        />
      ) : null}
      <AttachmentChips chatId={null} files={files.attached} onRemove={files.remove} testId="composer-attachment" />
      {files.error ? (
        <p className="composer__error" role="alert" data-testid="upload-error">
          {files.error}
        </p>
      ) : null}
      <div className="composer__box">
        {files.enabled ? (
          <>
            <input
              ref={fileInputRef}
              type="file"
              multiple
              hidden
              data-testid="file-input"
              onChange={(event) => {
                void files.add([...(event.target.files ?? [])]);
                event.target.value = '';
              }}
            />
            <button
              type="button"
              className="icon-button composer__attach"
              onClick={() => fileInputRef.current?.click()}
              data-testid="attach-button"
              aria-label="Attach files"
              title="Attach files"
            >
              +
            </button>
          </>
        ) : null}
        <textarea
          ref={textareaRef}
          className="composer__input"
          id={COMPOSER_INPUT_ID}
          data-testid="composer-input"
          // The ARIA combobox pattern on a textarea (messages span lines; an <input> cannot): axe's best-practice
          // rule aria-allowed-role (minor) notes the role on a textarea, the pattern itself is complete.
          role="combobox"
          aria-expanded={showMenu}
          aria-haspopup="listbox"
          aria-label="Message"
          aria-describedby={hintId}
          aria-autocomplete="list"
          aria-controls={showMenu ? listboxId : undefined}
          aria-activedescendant={showMenu && skills.length > 0 ? optionId(active) : undefined}
          placeholder="Message skillchat, or type / to use a skill"
          rows={1}
          value={value}
          autoFocus={autoFocus}
          onChange={(event) => {
            setValue(event.target.value);
            setDismissedFor(null);
          }}
          onKeyDown={onKeyDown}
          onBlur={() => setDismissedFor(value)}
          onFocus={() => setDismissedFor(null)}
        />
        <div className="composer__actions">
          {/* Separate keys: the same DOM button turning into type=submit while its click is handled would send. */}
          {busy ? (
            <button
              key="stop"
              type="button"
              className="icon-button icon-button--stop"
              onClick={onStop}
              data-testid="stop-button"
              aria-label="Stop"
              title="Stop"
            >
              <StopIcon />
            </button>
          ) : (
            <button
              key="send"
              type="submit"
              className="icon-button icon-button--send"
              disabled={!value.trim() || sending || files.uploading}
              data-testid="send-button"
              aria-label="Send"
              title="Send"
            >
              <SendIcon />
            </button>
          )}
        </div>
      </div>
      <p className="composer__hint" id={hintId}>
        <kbd>Enter</kbd> to send, <kbd>Shift</kbd>+<kbd>Enter</kbd> for a new line, <kbd>/</kbd> for skills
      </p>
    </form>
  );
}
