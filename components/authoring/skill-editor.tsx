'use client';
/**
 * The SKILL.md editor: as you type, the server checks the draft with the discovery loader (nothing is written) and
 * answers with its diagnostics, the catalog entry with its token cost, and the instructions for the preview. Save
 * writes the file atomically; the server refuses a draft that would not load.
 */
import { useEffect, useRef, useState } from 'react';
import { Markdown } from '@/components/chat/markdown';
import type { DiagnosticView } from '@/server/skills/types';

interface DraftCheck {
  loads: boolean;
  diagnostics: DiagnosticView[];
  name: string | null;
  catalogEntry: string | null;
  catalogTokens: number | null;
  body: string;
}

type Status = { kind: 'idle' | 'saving' | 'saved' } | { kind: 'error'; message: string };

/** Waits this long after the last keystroke before asking the server: one check per pause, not per key. */
const CHECK_DELAY_MS = 250;

export function SkillEditor({
  name,
  initialText,
  initialCheck,
}: {
  name: string;
  initialText: string;
  initialCheck: DraftCheck;
}) {
  const [text, setText] = useState(initialText);
  const [check, setCheck] = useState<DraftCheck>(initialCheck);
  const [checking, setChecking] = useState(false);
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const latest = useRef(0);
  const base = `/api/admin/skills/${encodeURIComponent(name)}`;

  useEffect(() => {
    if (text === initialText) return;
    const ticket = ++latest.current;
    setChecking(true);
    const timer = setTimeout(async () => {
      const response = await fetch(`${base}/draft`, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text }),
      }).catch(() => null);
      const body = (await response?.json().catch(() => null)) as (DraftCheck & { error?: string }) | null;
      if (ticket !== latest.current) return; // a newer draft is on its way
      setChecking(false);
      if (response?.ok && body) setCheck(body);
      else setStatus({ kind: 'error', message: body?.error ?? 'Could not check the draft' });
    }, CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, initialText, base]);

  async function save() {
    setStatus({ kind: 'saving' });
    const response = await fetch(`${base}/skill-file`, {
      method: 'PUT',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    }).catch(() => null);
    const body = (await response?.json().catch(() => null)) as (DraftCheck & { error?: string }) | null;
    if (response?.ok && body) {
      setCheck(body);
      setStatus({ kind: 'saved' });
    } else {
      if (body?.diagnostics) setCheck((c) => ({ ...c, diagnostics: body.diagnostics, loads: false }));
      setStatus({ kind: 'error', message: body?.error ?? 'Could not save' });
    }
  }

  const errors = check.diagnostics.filter((d) => d.severity === 'error').length;
  return (
    <div className="authoring" data-testid="skill-editor">
      <div className="authoring__edit">
        <label htmlFor="skill-text" className="authoring__label">
          SKILL.md
        </label>
        <textarea
          id="skill-text"
          className="authoring__text"
          value={text}
          spellCheck={false}
          onChange={(e) => {
            setText(e.target.value);
            setStatus({ kind: 'idle' });
          }}
          data-testid="editor-text"
        />
        <div className="authoring__actions">
          <button
            type="button"
            className="button button--primary"
            onClick={save}
            disabled={status.kind === 'saving' || !check.loads || checking}
            data-testid="editor-save"
          >
            Save
          </button>
          <span role="status" data-testid="editor-status" className="authoring__status">
            {status.kind === 'saved'
              ? 'Saved. The skill reloads in every chat.'
              : status.kind === 'saving'
                ? 'Saving…'
                : status.kind === 'error'
                  ? status.message
                  : checking
                    ? 'Checking…'
                    : errors > 0
                      ? `${errors} ${errors === 1 ? 'error' : 'errors'}: fix before saving`
                      : ''}
          </span>
        </div>
      </div>
      <div className="authoring__side">
        <h3>Checks</h3>
        {check.diagnostics.length === 0 ? (
          <p className="muted small" data-testid="editor-clean">
            No problems.
          </p>
        ) : (
          <ul className="authoring__diagnostics">
            {check.diagnostics.map((d) => (
              <li
                key={`${d.code}:${d.message}`}
                className={`authoring__diagnostic authoring__diagnostic--${d.severity}`}
                data-testid="editor-diagnostic"
                data-code={d.code}
                data-severity={d.severity}
              >
                <strong>{d.severity}</strong> {d.message}
                {d.hint ? <span className="muted small"> — {d.hint}</span> : null}
              </li>
            ))}
          </ul>
        )}
        <h3>Catalog entry</h3>
        {check.catalogEntry ? (
          <>
            <pre className="authoring__entry">{check.catalogEntry}</pre>
            <p className="small" data-testid="editor-tokens">
              {check.catalogTokens} tokens in every chat's catalog
            </p>
          </>
        ) : (
          <p className="muted small">Not in the catalog: the draft does not load.</p>
        )}
        <h3>Preview</h3>
        <div className="authoring__preview" data-testid="editor-preview">
          <Markdown text={check.body} streaming={false} />
        </div>
      </div>
    </div>
  );
}
