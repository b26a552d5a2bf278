'use client';
/** The chat's files, uploads and script outputs, newest last, as the chat last listed them. */
import { fileUrl, formatBytes } from './api';
import { useChatFiles } from './chat-files-context';

export function FilesPanel() {
  const chat = useChatFiles();
  const chatId = chat?.chatId;
  const files = chat?.files ?? [];
  if (!chatId || files.length === 0) return null;
  return (
    <details className="files-panel" data-testid="files-panel">
      <summary>
        Files <span className="files-panel__count">{files.length}</span>
      </summary>
      <ul>
        {files.map((f) => (
          <li key={f.name} data-testid="files-panel-item" data-origin={f.origin}>
            <a href={fileUrl(chatId, f.name)} download={f.name}>
              {f.name}
            </a>
            <span>
              {formatBytes(f.size)} · {f.origin === 'upload' ? 'uploaded' : 'from a script'}
            </span>
          </li>
        ))}
      </ul>
    </details>
  );
}
