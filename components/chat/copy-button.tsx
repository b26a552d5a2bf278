'use client';
/** Copies a whole message (its Markdown as written, tool cards left out) to the clipboard. */
import { useEffect, useState } from 'react';
import type { ChatMessage } from '@/server/chat/wire-types';

/** How long "Copied" stays before the button reads "Copy" again. */
const CONFIRM_MS = 1500;

export function messageMarkdown(message: ChatMessage): string {
  return message.parts
    .flatMap((p) => (p.type === 'text' && p.text.trim() !== '' ? [p.text] : []))
    .join('\n\n')
    .trim();
}

export function CopyButton({ message }: { message: ChatMessage }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), CONFIRM_MS);
    return () => clearTimeout(timer);
  }, [state]);

  const text = messageMarkdown(message);
  if (!text) return null;
  return (
    <button
      type="button"
      className="copy-button"
      onClick={() => {
        navigator.clipboard.writeText(text).then(
          () => setState('copied'),
          () => setState('failed'),
        );
      }}
      aria-live="polite"
      data-testid="copy-message"
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}
    </button>
  );
}
