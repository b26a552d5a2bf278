'use client';
/**
 * What a script run created or changed in the workspace, under its tool card: name, size, type, a download link,
 * a button that opens it in the viewer, and an inline preview: images as they are, a PDF's first page (rendered by
 * pdftoppm in the sandbox), the head of text, CSV and JSON. Files in a folder are cards too, unless the folder got
 * more than a few (`unpacked/` with 16 XML files): then it is one line with the count, opening to the list.
 */
import { useEffect, useState } from 'react';
import type { ProducedFile } from '@/server/chat/wire-types';
import { fileUrl, formatBytes } from './api';
import { type ChatFiles, useChatFiles } from './chat-files-context';
import { groupRunFiles } from './tree';

const TEXT_HEAD_BYTES = 2000;

function isText(mediaType: string): boolean {
  return mediaType.startsWith('text/') || mediaType === 'application/json' || mediaType.endsWith('+json');
}

function TextHead({ url }: { url: string }) {
  const [text, setText] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    fetch(url, { signal: controller.signal, headers: { range: `bytes=0-${TEXT_HEAD_BYTES - 1}` } })
      .then((r) => (r.ok ? r.text() : ''))
      .then((t) => setText(t.slice(0, TEXT_HEAD_BYTES)))
      .catch(() => {});
    return () => controller.abort();
  }, [url]);
  if (text === null) return null;
  return (
    <pre className="artifact__text" data-testid="artifact-preview-text">
      {text}
    </pre>
  );
}

function Preview({ chatId, file }: { chatId: string; file: ProducedFile }) {
  const url = fileUrl(chatId, file.name);
  if (file.mediaType.startsWith('image/') && file.mediaType !== 'image/svg+xml') {
    // biome-ignore lint/performance/noImgElement: a chat file served by our own route; next/image would proxy it.
    return <img className="artifact__image" src={url} alt={file.name} data-testid="artifact-preview-image" />;
  }
  if (file.mediaType === 'application/pdf') {
    return (
      // biome-ignore lint/performance/noImgElement: a PNG rendered on demand by our own route.
      <img
        className="artifact__image"
        src={fileUrl(chatId, file.name, true)}
        alt={`First page of ${file.name}`}
        data-testid="artifact-preview-pdf"
      />
    );
  }
  if (isText(file.mediaType)) return <TextHead url={url} />;
  return null;
}

function Card({ chat, file }: { chat: ChatFiles; file: ProducedFile }) {
  return (
    <section className="artifact" data-testid="artifact-card" data-name={file.name}>
      <header className="artifact__header">
        <span className="artifact__name">{file.name}</span>
        <span className="artifact__meta">
          {formatBytes(file.size)} · {file.mediaType} · {file.status}
        </span>
        <button
          type="button"
          className="artifact__open"
          onClick={() => chat.openFile(file.name)}
          data-testid="artifact-open"
        >
          Open
        </button>
        <a
          className="artifact__download"
          href={fileUrl(chat.chatId, file.name)}
          download={file.name.split('/').at(-1)}
          data-testid="artifact-download"
        >
          Download
        </a>
      </header>
      <Preview chatId={chat.chatId} file={file} />
    </section>
  );
}

function FolderLine({ chat, folder, files }: { chat: ChatFiles; folder: string; files: ProducedFile[] }) {
  const created = files.filter((f) => f.status === 'created').length;
  const what = created === files.length ? 'new' : created === 0 ? 'changed' : `${created} new`;
  return (
    <details className="artifact artifact--folder" data-testid="artifact-folder" data-name={folder}>
      <summary className="artifact__header">
        <span className="artifact__name">{folder}/</span>
        <span className="artifact__meta" data-testid="artifact-folder-count">
          {files.length} files · {formatBytes(files.reduce((sum, f) => sum + f.size, 0))} · {what}
        </span>
      </summary>
      <ul className="artifact__list">
        {files.map((f) => (
          <li key={f.name} data-testid="artifact-folder-item" data-name={f.name}>
            <button type="button" className="artifact__open" onClick={() => chat.openFile(f.name)}>
              {f.name.slice(folder.length + 1)}
            </button>
            <span className="artifact__meta">{formatBytes(f.size)}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

export function ArtifactCards({ files }: { files: ProducedFile[] | undefined }) {
  const chat = useChatFiles();
  if (!chat || !files || files.length === 0) return null;
  return (
    <div className="artifacts" data-testid="artifacts">
      {groupRunFiles(files).map((group) =>
        group.kind === 'file' ? (
          <Card key={group.file.name} chat={chat} file={group.file} />
        ) : (
          <FolderLine key={`${group.folder}/`} chat={chat} folder={group.folder} files={group.files} />
        ),
      )}
    </div>
  );
}
