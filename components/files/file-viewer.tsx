'use client';
/**
 * The viewer beside the chat (a full-screen sheet on a phone): one file of the chat as what it is. A document's
 * pages as images from the preview route, images, SVG as an image (never inlined, so its scripts never run), CSV and
 * TSV as a table, Markdown through the chat's own renderer, a page a skill built live in a frame sandboxed without
 * `allow-same-origin` and served under a policy with no network, anything else as text or only a download.
 */
import { useEffect, useState } from 'react';
import { Markdown } from '@/components/chat/markdown';
import type { WorkspaceFileView } from '@/server/chat/wire-types';
import { fileUrl, formatBytes, liveUrl, pageCount, pageUrl } from './api';
import { parseDelimited, viewKind } from './tree';

/** Rows a table shows; bytes of text fetched for a table, Markdown or text. */
const MAX_ROWS = 500;
const MAX_TEXT_BYTES = 1024 * 1024;

function useText(url: string): { text: string | null; failed: boolean } {
  const [state, setState] = useState<{ text: string | null; failed: boolean }>({ text: null, failed: false });
  useEffect(() => {
    const controller = new AbortController();
    setState({ text: null, failed: false });
    fetch(url, { signal: controller.signal, headers: { range: `bytes=0-${MAX_TEXT_BYTES - 1}` } })
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(String(r.status)))))
      .then((text) => setState({ text: text.slice(0, MAX_TEXT_BYTES), failed: false }))
      .catch(() => {
        if (!controller.signal.aborted) setState({ text: null, failed: true });
      });
    return () => controller.abort();
  }, [url]);
  return state;
}

function Table({ url, separator }: { url: string; separator: ',' | '\t' }) {
  const { text, failed } = useText(url);
  if (failed) return <p className="viewer__note">The file could not be read.</p>;
  if (text === null) return <p className="viewer__note">Loading…</p>;
  const { rows, truncated } = parseDelimited(text, separator, MAX_ROWS + 1);
  const [head, ...body] = rows;
  return (
    <div className="viewer__table-wrap">
      <table className="viewer__table" data-testid="viewer-table">
        {head ? (
          <thead>
            <tr>
              {head.map((cell, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: columns have no identity but their place.
                <th key={i}>{cell}</th>
              ))}
            </tr>
          </thead>
        ) : null}
        <tbody>
          {body.slice(0, MAX_ROWS).map((row, r) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place.
            <tr key={r}>
              {row.map((cell, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: likewise.
                <td key={i}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {truncated || body.length > MAX_ROWS ? (
        <p className="viewer__note">The first {MAX_ROWS} rows are shown; download the file for all of them.</p>
      ) : null}
    </div>
  );
}

function TextView({ url, markdown }: { url: string; markdown: boolean }) {
  const { text, failed } = useText(url);
  if (failed) return <p className="viewer__note">The file could not be read.</p>;
  if (text === null) return <p className="viewer__note">Loading…</p>;
  if (markdown) {
    return (
      <div className="viewer__markdown" data-testid="viewer-markdown">
        <Markdown text={text} streaming={false} />
      </div>
    );
  }
  return (
    <pre className="viewer__text" data-testid="viewer-text">
      {text}
    </pre>
  );
}

function Pages({ chatId, name }: { chatId: string; name: string }) {
  const [pages, setPages] = useState<number | null | undefined>(undefined);
  useEffect(() => {
    const controller = new AbortController();
    setPages(undefined);
    pageCount(chatId, name, controller.signal)
      .then(setPages)
      .catch(() => {
        if (!controller.signal.aborted) setPages(null);
      });
    return () => controller.abort();
  }, [chatId, name]);
  if (pages === undefined) return <p className="viewer__note">Loading…</p>;
  if (!pages) return <p className="viewer__note">No preview of this file here; download it to open it.</p>;
  return (
    <div className="viewer__pages" data-testid="viewer-pages">
      {Array.from({ length: pages }, (_, i) => (
        // biome-ignore lint/performance/noImgElement: PNGs rendered on demand by our own route.
        <img
          // biome-ignore lint/suspicious/noArrayIndexKey: a page is its number.
          key={i}
          className="viewer__page"
          src={pageUrl(chatId, name, i + 1)}
          alt={`Page ${i + 1} of ${name}`}
          loading="lazy"
          data-testid="viewer-page"
        />
      ))}
    </div>
  );
}

function Body({ chatId, file }: { chatId: string; file: WorkspaceFileView }) {
  const url = fileUrl(chatId, file.name);
  switch (viewKind(file.name, file.mediaType)) {
    case 'image':
    case 'svg':
      // An SVG as an image: its scripts and links never run, whatever it holds.
      // biome-ignore lint/performance/noImgElement: a chat file served by our own route.
      return <img className="viewer__image" src={url} alt={file.name} data-testid="viewer-image" />;
    case 'pages':
      return <Pages chatId={chatId} name={file.name} />;
    case 'table':
      return <Table url={url} separator={file.name.toLowerCase().endsWith('.tsv') ? '\t' : ','} />;
    case 'markdown':
      return <TextView url={url} markdown />;
    case 'html':
      return (
        <iframe
          className="viewer__frame"
          title={file.name}
          src={liveUrl(chatId, file.name)}
          // Scripts only: no allow-same-origin (an opaque origin, so no cookies or API), no forms, no popups.
          sandbox="allow-scripts"
          referrerPolicy="no-referrer"
          data-testid="viewer-frame"
        />
      );
    case 'text':
      return <TextView url={url} markdown={false} />;
    default:
      return <p className="viewer__note">No preview of this kind of file; download it to open it.</p>;
  }
}

export function FileViewer({
  chatId,
  file,
  name,
  version,
  onClose,
}: {
  chatId: string;
  /** Bumps when the chat's files may have changed: what is shown is fetched again. */
  version: number;
  /** The file as last listed; null when it is gone (deleted by a later run). */
  file: WorkspaceFileView | null;
  name: string;
  onClose: () => void;
}) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <aside className="viewer" aria-label="File viewer" data-testid="viewer" data-name={name}>
      <header className="viewer__header">
        <div className="viewer__title">
          <span className="viewer__name" data-testid="viewer-name">
            {name}
          </span>
          {file ? (
            <span className="viewer__meta">
              {formatBytes(file.size)} · {file.mediaType}
              {file.change ? ` · ${file.change === 'created' ? 'new' : 'changed'} in the latest run` : ''}
            </span>
          ) : null}
        </div>
        {file ? (
          <a
            className="button button--ghost"
            href={fileUrl(chatId, file.name)}
            download={file.name.split('/').at(-1)}
            data-testid="viewer-download"
          >
            Download
          </a>
        ) : null}
        <button
          type="button"
          className="button button--ghost"
          onClick={onClose}
          aria-label="Close the viewer"
          data-testid="viewer-close"
        >
          ✕
        </button>
      </header>
      <div className="viewer__body">
        {file ? (
          <Body key={`${file.name}:${file.size}:${version}`} chatId={chatId} file={file} />
        ) : (
          <p className="viewer__note">This file is no longer in the chat.</p>
        )}
      </div>
    </aside>
  );
}
