'use client';
/**
 * Install a skill on /admin: upload a .zip/.skill archive or a skill's folder (`webkitdirectory`: each file with its
 * relative path), or give a git, archive or index URL. On /settings the same form installs a person's own skill
 * (`endpoint`, archive and folder only). A refusal lists every
 * reason; a name that is already installed offers "Show changes" (the SKILL.md diff and file list) before "Apply
 * update". The server rescans after a change, so the skill is in the chat's slash menu without a restart.
 */
import { useRouter } from 'next/navigation';
import { type FormEvent, useId, useRef, useState, useTransition } from 'react';
import './install.css';

type Mode = 'install' | 'preview' | 'update';

interface Problem {
  code: string;
  message: string;
  path?: string;
}

interface Diff {
  skillFile: string;
  added: string[];
  removed: string[];
  changed: string[];
  unchanged: number;
}

interface Success {
  skill: { name: string };
  applied: boolean;
  replaced: boolean;
  diff?: Diff;
  diagnostics: Array<{ severity: string; code: string; message: string }>;
  notice?: string;
}

type Outcome = { kind: 'ok'; result: Success } | { kind: 'refused'; problems: Problem[]; conflict: boolean } | null;

type Source = { file: File } | { folder: File[] } | { url: string; name?: string };

/** The folder's files as the install routes read them (server/install/upload.ts): `files` with `paths` beside. */
function folderForm(files: File[]): FormData {
  const form = new FormData();
  for (const file of files) {
    form.append('files', file, file.name);
    form.append('paths', file.webkitRelativePath || file.name);
  }
  return form;
}

function parseProblems(body: unknown, status: number): Problem[] {
  if (body && typeof body === 'object') {
    if ('problems' in body && Array.isArray(body.problems)) return body.problems as Problem[];
    if ('error' in body && typeof body.error === 'string') return [{ code: 'error', message: body.error }];
  }
  return [{ code: 'error', message: `Install failed (${status})` }];
}

export function InstallSkill({
  root,
  endpoint = '/api/admin/skills/install',
  urls = true,
}: {
  /** Where installs go, as the operator reads it; absent on /settings (a person's folder is not theirs to see). */
  root?: string;
  endpoint?: string;
  /** Offer installing from a URL (the admin's form). */
  urls?: boolean;
}) {
  const router = useRouter();
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const folderId = useId();
  const [url, setUrl] = useState('');
  const [indexName, setIndexName] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [lastSource, setLastSource] = useState<Source | null>(null);
  const [refreshing, startTransition] = useTransition();

  async function send(source: Source, mode: Mode) {
    setBusy(true);
    setLastSource(source);
    try {
      let init: RequestInit;
      if ('file' in source) {
        const form = new FormData();
        form.set('file', source.file);
        form.set('mode', mode);
        init = { method: 'POST', body: form };
      } else if ('folder' in source) {
        const form = folderForm(source.folder);
        form.set('mode', mode);
        init = { method: 'POST', body: form };
      } else {
        const body = { url: source.url, mode, ...(source.name ? { name: source.name } : {}) };
        init = { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
      }
      const response = await fetch(endpoint, { ...init, credentials: 'same-origin' });
      const body: unknown = await response.json().catch(() => null);
      if (!response.ok) {
        setOutcome({
          kind: 'refused',
          problems: parseProblems(body, response.status),
          conflict: response.status === 409,
        });
        return;
      }
      const result = body as Success;
      setOutcome({ kind: 'ok', result });
      if (result.applied) startTransition(() => router.refresh());
    } catch {
      setOutcome({
        kind: 'refused',
        problems: [{ code: 'error', message: 'The server did not answer' }],
        conflict: false,
      });
    } finally {
      setBusy(false);
    }
  }

  function submitFile(event: FormEvent) {
    event.preventDefault();
    const file = fileInput.current?.files?.[0];
    if (file) void send({ file }, 'install');
  }

  function submitFolder(event: FormEvent) {
    event.preventDefault();
    const files = [...(folderInput.current?.files ?? [])];
    if (files.length > 0) void send({ folder: files }, 'install');
  }

  function submitUrl(event: FormEvent) {
    event.preventDefault();
    if (url.trim()) void send({ url: url.trim(), ...(indexName.trim() ? { name: indexName.trim() } : {}) }, 'install');
  }

  const working = busy || refreshing;
  return (
    <div className="install" data-testid="install-skill">
      <p className="muted small">
        {root !== undefined && (
          <>
            Installs go to <code data-testid="install-root">{root}</code>.{' '}
          </>
        )}
        Archives and folders are checked before anything is unpacked (no absolute paths, <code>..</code>, links,
        devices, case clashes, oversized or zip-bomb contents) and the skill is validated before it goes live.
      </p>
      <form className="install__row" onSubmit={submitFile}>
        <label className="small" htmlFor="install-file">
          Archive (.zip, .skill)
        </label>
        <input id="install-file" ref={fileInput} type="file" accept=".zip,.skill" data-testid="install-file" />
        <button type="submit" className="button button--primary" disabled={working} data-testid="install-submit">
          {working ? 'Installing…' : 'Install'}
        </button>
      </form>
      <form className="install__row" onSubmit={submitFolder}>
        <label className="small" htmlFor={folderId}>
          Folder (with SKILL.md)
        </label>
        <input
          id={folderId}
          ref={folderInput}
          type="file"
          multiple
          // React does not know the attribute; Chromium, Firefox and Safari all take it.
          {...{ webkitdirectory: '' }}
          data-testid="install-folder"
        />
        <button type="submit" className="button button--primary" disabled={working} data-testid="install-folder-submit">
          {working ? 'Installing…' : 'Install folder'}
        </button>
      </form>
      {urls && (
        <form className="install__row" onSubmit={submitUrl}>
          <label className="small" htmlFor="install-url">
            Git, archive or index URL
          </label>
          <input
            id="install-url"
            type="url"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            placeholder="https://github.com/org/skill.git or https://example.org/index.json"
            data-testid="install-url"
          />
          <input
            type="text"
            value={indexName}
            onChange={(e) => setIndexName(e.target.value)}
            placeholder="skill name (index)"
            aria-label="Skill name in the index"
            data-testid="install-index-name"
          />
          <button type="submit" className="button button--outline" disabled={working} data-testid="install-url-submit">
            Install from URL
          </button>
        </form>
      )}
      {outcome?.kind === 'refused' && (
        <div className="install__refused" role="alert" data-testid="install-errors">
          <p>The skill was not installed:</p>
          <ul>
            {outcome.problems.map((p) => (
              <li key={`${p.code}:${p.path ?? ''}:${p.message}`} data-testid="install-problem" data-code={p.code}>
                <code>{p.code}</code> {p.path && <code>{p.path}</code>} {p.message}
              </li>
            ))}
          </ul>
          {outcome.conflict && lastSource && outcome.problems.some((p) => p.code === 'already-installed') && (
            <button
              type="button"
              className="button button--outline button--small"
              onClick={() => void send(lastSource, 'preview')}
              disabled={working}
              data-testid="install-preview"
            >
              Show changes
            </button>
          )}
        </div>
      )}
      {outcome?.kind === 'ok' && <InstallOutcome result={outcome.result} />}
      {outcome?.kind === 'ok' && !outcome.result.applied && lastSource && (
        <button
          type="button"
          className="button button--primary button--small"
          onClick={() => void send(lastSource, 'update')}
          disabled={working}
          data-testid="install-apply"
        >
          Apply update
        </button>
      )}
    </div>
  );
}

function InstallOutcome({ result }: { result: Success }) {
  const { diff } = result;
  return (
    <div className="install__result" data-testid="install-result" data-skill={result.skill.name}>
      <p>
        {result.applied ? (result.replaced ? 'Updated' : 'Installed') : 'Changes if updated:'}{' '}
        <strong>{result.skill.name}</strong>
        {result.applied && ': it is available in new and open chats now.'}
      </p>
      {result.notice && <p className="install__notice">{result.notice}</p>}
      {result.diagnostics.length > 0 && (
        <ul className="small">
          {result.diagnostics.map((d) => (
            <li key={`${d.code}:${d.message}`} data-testid="install-diagnostic" data-severity={d.severity}>
              {d.severity}: <code>{d.code}</code> {d.message}
            </li>
          ))}
        </ul>
      )}
      {diff && (
        <div data-testid="install-diff">
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls, so a keyboard must reach it (axe: scrollable-region-focusable) */}
          <pre className="code-block" tabIndex={0}>
            {diff.skillFile || 'SKILL.md unchanged'}
          </pre>
          <ul className="small" data-testid="install-diff-files">
            {diff.added.map((f) => (
              <li key={`a:${f}`}>added {f}</li>
            ))}
            {diff.removed.map((f) => (
              <li key={`r:${f}`}>removed {f}</li>
            ))}
            {diff.changed.map((f) => (
              <li key={`c:${f}`}>changed {f}</li>
            ))}
            <li>{diff.unchanged} unchanged</li>
          </ul>
        </div>
      )}
    </div>
  );
}
