'use client';
/** The chat's files, uploads and script outputs, newest last; reloads when the chat's files may have changed. */
import { useEffect, useState } from 'react';
import type { WorkspaceFileView } from '@/server/chat/types';
import { fileUrl, formatBytes, listFiles } from './api';
import { useChatFiles } from './chat-files-context';

export function FilesPanel() {
  const chat = useChatFiles();
  const [files, setFiles] = useState<WorkspaceFileView[]>([]);
  const chatId = chat?.chatId;
  const version = chat?.version ?? 0;
  useEffect(() => {
    if (!chatId) return;
    const controller = new AbortController();
    listFiles(chatId, controller.signal)
      .then(setFiles)
      .catch(() => {});
    void version;
    return () => controller.abort();
  }, [chatId, version]);
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
