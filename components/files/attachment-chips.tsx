'use client';
/** Files attached to a message: name and size, each a download link once the chat exists. */
import type { Attachment } from '@/server/chat/types';
import { fileUrl, formatBytes } from './api';

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
