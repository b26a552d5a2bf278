'use client';
/**
 * Files attached to a message: name and size, each a download link once the chat exists, and whether its text was
 * read for the model (from the chat's files list; nothing for files that are not documents).
 */
import type { Attachment, FileTextState } from '@/server/chat/wire-types';
import { fileUrl, formatBytes } from './api';
import { useChatFiles } from './chat-files-context';

export function AttachmentChips({
  chatId,
  files,
  onRemove,
  testId = 'attachment-chip',
}: {
  chatId: string | null;
  files: Attachment[];
  onRemove?: (name: string) => void;
  testId?: string;
}) {
  const listed = useChatFiles()?.files;
  if (files.length === 0) return null;
  return (
    <ul className="attachments">
      {files.map((f) => (
        <li key={f.name} className="attachment-chip" data-testid={testId} data-name={f.name}>
          {chatId ? (
            <a href={fileUrl(chatId, f.name)} download={f.name}>
              {f.name}
            </a>
          ) : (
            <span>{f.name}</span>
          )}
          <span className="attachment-chip__size">{formatBytes(f.size)}</span>
          <TextState text={listed?.find((l) => l.name === f.name)?.text} />
          {onRemove ? (
            <button type="button" aria-label={`Remove ${f.name}`} onClick={() => onRemove(f.name)}>
              ×
            </button>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

function readSummary(text: FileTextState): string {
  const parts = text.parts
    ? `${text.parts.count} ${text.parts.count === 1 ? text.parts.unit.slice(0, -1) : text.parts.unit}`
    : null;
  const chars = text.chars !== undefined ? `${text.chars.toLocaleString('en-US')} characters` : null;
  return ['text read', parts ?? chars, text.cut ? 'the start only' : null].filter(Boolean).join(' · ');
}

function TextState({ text }: { text: FileTextState | undefined }) {
  if (!text || text.state === 'none') return null;
  const shown =
    text.state === 'read'
      ? `✓ ${readSummary(text)}`
      : text.state === 'pending'
        ? 'reading…'
        : `could not read: ${text.reason ?? 'unknown reason'}`;
  return (
    <span
      className={`attachment-chip__state attachment-chip__state--${text.state}`}
      data-testid="attachment-state"
      data-state={text.state}
      title={shown}
    >
      {shown}
    </span>
  );
}
