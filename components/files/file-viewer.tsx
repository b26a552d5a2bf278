'use client';
/**
 * The viewer beside the chat (a full-screen sheet on a phone): one file of the chat as what it is. A document's
 * pages as images from the preview route, images, SVG as an image (never inlined, so its scripts never run), CSV and
 * TSV as a table, Markdown through the chat's own renderer, a page a skill built live in a frame sandboxed without
 * `allow-same-origin` and served under a policy with no network, anything else as text or only a download. Above
 * it, the versions of the file the chat's runs wrote, by turn: an earlier one opens in place and downloads.
 */
import { useEffect, useState } from 'react';
import { Markdown } from '@/components/chat/markdown';
import type { WorkspaceFileView } from '@/server/chat/wire-types';
import type { FileVersionEntry } from '@/server/workspace/file-versions';
import { fileUrl, formatBytes, listVersions, liveUrl, pageCount, pageUrl, versionUrl } from './api';
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

function Body({ chatId, file, earlier }: { chatId: string; file: WorkspaceFileView; earlier: string | null }) {
  const url = earlier ? versionUrl(chatId, file.name, earlier) : fileUrl(chatId, file.name);
  const kind = viewKind(file.name, file.mediaType);
  // Pages are rendered and pages run live from the current file only.
  if (earlier && (kind === 'pages' || kind === 'html')) {
    return <p className="viewer__note">Earlier versions of this kind are not shown here; download it to open it.</p>;
  }
  switch (kind) {
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

/** The kept versions of the open file, fetched again when the chat's files may have changed. */
function useVersions(chatId: string, name: string, filesVersion: number): FileVersionEntry[] {
  const [versions, setVersions] = useState<FileVersionEntry[]>([]);
  useEffect(() => {
    const controller = new AbortController();
    // The counter is a dependency on purpose: a finished run may have written a new version.
    void filesVersion;
    listVersions(chatId, name, controller.signal)
      .then(setVersions)
      .catch(() => {
        if (!controller.signal.aborted) setVersions([]);
      });
    return () => controller.abort();
  }, [chatId, name, filesVersion]);
  return versions;
}

function Versions({
  versions,
  shown,
  turnOf,
  onShow,
}: {
  versions: FileVersionEntry[];
  /** The earlier version shown, or null for the current file. */
  shown: string | null;
  turnOf: (version: string) => number | undefined;
  onShow: (version: string | null) => void;
}) {
  const label = (v: FileVersionEntry) => {
    const turn = turnOf(v.id);
    const time = new Date(v.at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    return turn ? `Turn ${turn}` : time;
  };
  return (
    <nav className="viewer__versions" aria-label="Versions of this file" data-testid="viewer-versions">
      <span className="viewer__meta">Versions</span>
      {versions.map((v, i) => {
        const latest = i === versions.length - 1;
        const current = latest ? shown === null : shown === v.id;
        return (
          <button
            key={v.id}
            type="button"
            className="viewer__version"
            aria-pressed={current}
            title={`${formatBytes(v.size)} · ${new Date(v.at).toLocaleString()}`}
            onClick={() => onShow(latest ? null : v.id)}
            data-testid="viewer-version"
            data-version={v.id}
            data-latest={latest ? 'true' : undefined}
          >
            {label(v)}
            {latest ? ' (latest)' : ''}
          </button>
        );
      })}
    </nav>
  );
}

export function FileViewer({
  chatId,
  file,
  name,
  version,
  turnOf,
  onClose,
}: {
  chatId: string;
  /** Bumps when the chat's files may have changed: what is shown is fetched again. */
  version: number;
  /** The file as last listed; null when it is gone (deleted by a later run). */
  file: WorkspaceFileView | null;
  name: string;
  /** The turn of the chat whose run wrote a version (from the messages loaded), when known. */
  turnOf: (version: string) => number | undefined;
  onClose: () => void;
}) {
  const versions = useVersions(chatId, name, version);
  const [earlier, setEarlier] = useState<string | null>(null);
  // Another file, or a new version written: the current file again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: resets when the file or the chat's files change.
  useEffect(() => setEarlier(null), [name, version]);
  const shownEarlier = earlier && versions.some((v) => v.id === earlier) ? earlier : null;
  const shownEntry = shownEarlier ? versions.find((v) => v.id === shownEarlier) : undefined;
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
          {shownEntry ? (
            <span className="viewer__meta" data-testid="viewer-earlier">
              {formatBytes(shownEntry.size)} · an earlier version
              {turnOf(shownEntry.id) ? `, from turn ${turnOf(shownEntry.id)}` : ''}
            </span>
          ) : file ? (
            <span className="viewer__meta">
              {formatBytes(file.size)} · {file.mediaType}
              {file.change ? ` · ${file.change === 'created' ? 'new' : 'changed'} in the latest run` : ''}
            </span>
          ) : null}
        </div>
        {file ? (
          <a
            className="button button--ghost"
            href={shownEarlier ? versionUrl(chatId, file.name, shownEarlier) : fileUrl(chatId, file.name)}
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
      {versions.length > 1 ? (
        <Versions versions={versions} shown={shownEarlier} turnOf={turnOf} onShow={setEarlier} />
      ) : null}
      <div className="viewer__body">
        {file ? (
          <Body
            key={`${file.name}:${file.size}:${version}:${shownEarlier ?? ''}`}
            chatId={chatId}
            file={file}
            earlier={shownEarlier}
          />
        ) : (
          <p className="viewer__note">This file is no longer in the chat.</p>
        )}
      </div>
    </aside>
  );
}
