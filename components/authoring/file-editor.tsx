'use client';
/**
 * The editor for a skill's other text files (references, scripts, assets): pick one from the list, or name a new
 * one (folders are created as needed), edit it in a textarea and save. The server writes atomically, refuses
 * binary files and paths outside the skill, and answers with hidden-text warnings, which are shown here.
 */
import { useState } from 'react';
import type { DiagnosticView } from '@/server/skills/types';

type Status = { kind: 'idle' | 'loading' | 'saving' | 'saved' } | { kind: 'error'; message: string };

async function call(url: string, init?: RequestInit) {
  const response = await fetch(url, { credentials: 'same-origin', ...init }).catch(() => null);
  const body = (await response?.json().catch(() => null)) as Record<string, unknown> | null;
  return { ok: Boolean(response?.ok && body), body: body ?? {} };
}

export function FileEditor({ name, initialFiles }: { name: string; initialFiles: string[] }) {
  const [files, setFiles] = useState(initialFiles);
  const [current, setCurrent] = useState<string | null>(null);
  const [text, setText] = useState('');
  const [newPath, setNewPath] = useState('');
  const [warnings, setWarnings] = useState<DiagnosticView[]>([]);
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const base = `/api/admin/skills/${encodeURIComponent(name)}/files`;

  async function open(rel: string) {
    setStatus({ kind: 'loading' });
    setWarnings([]);
    const { ok, body } = await call(`${base}?path=${encodeURIComponent(rel)}`);
    if (!ok) return setStatus({ kind: 'error', message: String(body.error ?? 'Could not open the file') });
    setCurrent(rel);
    setText(String(body.text ?? ''));
    setStatus({ kind: 'idle' });
  }

  function startNew() {
    const rel = newPath.trim();
    if (!rel) return;
    setCurrent(rel);
    setText('');
    setWarnings([]);
    setStatus({ kind: 'idle' });
  }

  async function save() {
    if (current === null) return;
    setStatus({ kind: 'saving' });
    const { ok, body } = await call(`${base}?path=${encodeURIComponent(current)}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    });
    if (!ok) return setStatus({ kind: 'error', message: String(body.error ?? 'Could not save') });
    const saved = String(body.path ?? current);
    setCurrent(saved);
    setWarnings((body.diagnostics as DiagnosticView[] | undefined) ?? []);
    if (!files.includes(saved)) setFiles([...files, saved].sort());
    setStatus({ kind: 'saved' });
  }

  return (
    <div className="file-editor" data-testid="file-editor">
      <h3>Other files</h3>
      <ul className="file-editor__list">
        {files.map((f) => (
          <li key={f}>
            <button
              type="button"
              className={`file-editor__file${f === current ? ' file-editor__file--current' : ''}`}
              onClick={() => open(f)}
              data-testid="file-editor-file"
              data-path={f}
            >
              {f}
            </button>
          </li>
        ))}
      </ul>
      <div className="file-editor__new">
        <input
          type="text"
          value={newPath}
          placeholder="references/notes.md"
          aria-label="New file path"
          onChange={(e) => setNewPath(e.target.value)}
          data-testid="file-editor-new-path"
        />
        <button type="button" className="button button--outline" onClick={startNew} data-testid="file-editor-new">
          New file
        </button>
      </div>
      {current !== null ? (
        <>
          <label htmlFor="file-text" className="authoring__label">
            {current}
          </label>
          <textarea
            id="file-text"
            className="authoring__text"
            value={text}
            spellCheck={false}
            onChange={(e) => {
              setText(e.target.value);
              setStatus({ kind: 'idle' });
            }}
            data-testid="file-editor-text"
          />
        </>
      ) : null}
      <div className="authoring__actions">
        {current !== null ? (
          <button
            type="button"
            className="button button--primary"
            onClick={save}
            disabled={status.kind === 'saving' || status.kind === 'loading'}
            data-testid="file-editor-save"
          >
            Save
          </button>
        ) : null}
        <span role="status" className="authoring__status" data-testid="file-editor-status">
          {status.kind === 'saved'
            ? 'Saved. Chats read the new text.'
            : status.kind === 'saving'
              ? 'Saving…'
              : status.kind === 'loading'
                ? 'Opening…'
                : status.kind === 'error'
                  ? status.message
                  : ''}
        </span>
      </div>
      {warnings.length > 0 ? (
        <ul className="authoring__diagnostics">
          {warnings.map((d) => (
            <li
              key={`${d.code}:${d.message}`}
              className={`authoring__diagnostic authoring__diagnostic--${d.severity}`}
              data-testid="file-editor-diagnostic"
              data-code={d.code}
            >
              <strong>{d.severity}</strong> {d.message}
              {d.hint ? <span className="muted small"> — {d.hint}</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
