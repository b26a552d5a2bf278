'use client';
/**
 * What a script run created or changed in the workspace, under its tool card: name, size, type, a download link,
 * and an inline preview: images as they are, a PDF's first page (rendered by pdftoppm in the sandbox), the head of
 * text, CSV and JSON.
 */
import { useEffect, useState } from 'react';
import type { ProducedFile } from '@/server/chat/wire-types';
import { fileUrl, formatBytes } from './api';
import { useChatFiles } from './chat-files-context';

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

export function ArtifactCards({ files }: { files: ProducedFile[] | undefined }) {
  const chat = useChatFiles();
  if (!chat || !files || files.length === 0) return null;
  return (
    <div className="artifacts" data-testid="artifacts">
      {files.map((file) => (
        <section key={file.name} className="artifact" data-testid="artifact-card" data-name={file.name}>
          <header className="artifact__header">
            <span className="artifact__name">{file.name}</span>
            <span className="artifact__meta">
              {formatBytes(file.size)} · {file.mediaType} · {file.status}
            </span>
            <a
              className="artifact__download"
              href={fileUrl(chat.chatId, file.name)}
              download={file.name}
              data-testid="artifact-download"
            >
              Download
            </a>
          </header>
          <Preview chatId={chat.chatId} file={file} />
        </section>
      ))}
    </div>
  );
}
