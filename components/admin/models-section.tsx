'use client';
/**
 * /admin's Models section: every model a chat can pick and where it came from; the model servers added here, each
 * with Edit and Remove; and the form that adds or edits one: its kind, base URL and key, "Test" (the server's model
 * list, or why not), and which of its models to offer. A key goes to the server once and is never shown again:
 * the form says whether one is set and offers to replace it.
 */
import { useRouter } from 'next/navigation';
import { type FormEvent, useState, useTransition } from 'react';
import { errorMessageFrom } from '@/components/lib/api';
import type { AdminConnection, AdminModels } from '@/server/admin/models';
import type { ConnectionKind } from '@/server/model/endpoint';
import type { ModelSource } from '@/server/model/registry';
import { AdminTable } from './admin-table';
import './models-section.css';

const KINDS: { kind: ConnectionKind; label: string; baseUrl: string; key: 'required' | 'optional' | 'none' }[] = [
  { kind: 'compatible', label: 'OpenAI-compatible endpoint', baseUrl: 'http://127.0.0.1:8000/v1', key: 'optional' },
  { kind: 'openai', label: 'OpenAI', baseUrl: 'https://api.openai.com/v1', key: 'required' },
  { kind: 'anthropic', label: 'Anthropic', baseUrl: 'https://api.anthropic.com/v1', key: 'required' },
  { kind: 'ollama', label: 'Ollama', baseUrl: 'http://127.0.0.1:11434', key: 'none' },
];
const kindOf = (kind: ConnectionKind) => KINDS.find((k) => k.kind === kind)!;

const SOURCE: Record<ModelSource, string> = {
  'built-in': 'built in',
  environment: 'environment variables',
  found: 'found on this computer',
  admin: 'added here',
};

type TestResult = { ok: true; models: string[] } | { ok: false; problem: string };

async function send(
  url: string,
  method: string,
  body?: unknown,
): Promise<{ ok: boolean; data: unknown; error: string }> {
  try {
    const response = await fetch(url, {
      method,
      credentials: 'same-origin',
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok)
      return { ok: false, data: null, error: errorMessageFrom(text, `The server refused (${response.status})`) };
    return { ok: true, data: JSON.parse(text) as unknown, error: '' };
  } catch {
    return { ok: false, data: null, error: 'The server did not answer' };
  }
}

function ConnectionForm({ editing, onDone }: { editing: AdminConnection | null; onDone: () => void }) {
  const router = useRouter();
  const [, startTransition] = useTransition();
  const [kind, setKind] = useState<ConnectionKind>(editing?.kind ?? 'compatible');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [tested, setTested] = useState<TestResult | null>(
    editing?.models ? { ok: true, models: editing.models } : null,
  );
  const [every, setEvery] = useState(editing ? editing.models === null : true);
  const [chosen, setChosen] = useState<Set<string>>(new Set(editing?.models ?? []));
  const spec = kindOf(kind);

  function fields(form: HTMLFormElement) {
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    const apiKey = text('apiKey');
    return {
      kind,
      ...(text('name') ? { name: text('name') } : {}),
      ...(text('baseUrl') ? { baseUrl: text('baseUrl') } : {}),
      ...(apiKey ? { apiKey } : {}),
    };
  }

  async function test(form: HTMLFormElement) {
    setBusy(true);
    setError(null);
    const answer = await send('/api/admin/model-connections/test', 'POST', {
      ...fields(form),
      ...(editing ? { id: editing.id } : {}),
    });
    setBusy(false);
    if (!answer.ok) return setError(answer.error);
    const result = answer.data as TestResult;
    setTested(result);
    if (result.ok && chosen.size === 0) setChosen(new Set(result.models));
  }

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    setBusy(true);
    setError(null);
    const body = { ...fields(form), models: every ? null : [...chosen] };
    const answer = editing
      ? await send(`/api/admin/model-connections/${encodeURIComponent(editing.id)}`, 'PATCH', body)
      : await send('/api/admin/model-connections', 'POST', body);
    setBusy(false);
    if (!answer.ok) return setError(answer.error);
    form.reset();
    setTested(null);
    setChosen(new Set());
    setEvery(true);
    onDone();
    startTransition(() => router.refresh());
  }

  const toggle = (id: string) => {
    const next = new Set(chosen);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setChosen(next);
  };

  return (
    <form className="model-form" onSubmit={save} data-testid="connection-form">
      <div className="model-form__fields">
        <label>
          <span>Kind</span>
          <select
            name="kind"
            value={kind}
            disabled={editing !== null}
            onChange={(e) => {
              setKind(e.target.value as ConnectionKind);
              setTested(null);
            }}
            data-testid="connection-kind"
          >
            {KINDS.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          <span>Name {editing ? '' : <span className="muted">(optional)</span>}</span>
          <input
            name="name"
            defaultValue={editing?.name ?? ''}
            placeholder={spec.label}
            data-testid="connection-name"
          />
        </label>
        <label className="model-form__wide">
          <span>
            {kind === 'ollama' ? 'URL' : 'Base URL'}{' '}
            {kind === 'compatible' ? '' : <span className="muted">(optional)</span>}
          </span>
          <input
            name="baseUrl"
            type="url"
            required={kind === 'compatible' && !editing}
            defaultValue={editing?.baseUrl ?? ''}
            placeholder={spec.baseUrl}
            autoComplete="off"
            data-testid="connection-base-url"
          />
        </label>
        {spec.key !== 'none' && (
          <label>
            <span>
              Key{' '}
              {editing?.keySet ? (
                <span className="muted" data-testid="connection-key-state">
                  set: type to replace
                </span>
              ) : spec.key === 'optional' ? (
                <span className="muted">(if it needs one)</span>
              ) : null}
            </span>
            <input
              name="apiKey"
              type="password"
              autoComplete="off"
              spellCheck={false}
              required={spec.key === 'required' && !editing?.keySet}
              placeholder={editing?.keySet ? 'Replace the key' : 'Key'}
              data-testid="connection-key"
            />
          </label>
        )}
      </div>
      <div className="model-form__actions">
        <button
          type="button"
          className="button button--outline button--small"
          disabled={busy}
          onClick={(e) => void test(e.currentTarget.form!)}
          data-testid="connection-test"
        >
          Test
        </button>
        <button
          type="submit"
          className="button button--primary button--small"
          disabled={busy}
          data-testid="connection-save"
        >
          {editing ? 'Save changes' : 'Add'}
        </button>
        {editing && (
          <button
            type="button"
            className="button button--outline button--small"
            onClick={onDone}
            data-testid="connection-cancel"
          >
            Cancel
          </button>
        )}
      </div>
      {tested && !tested.ok && (
        <p className="model-form__problem" role="alert" data-testid="connection-test-problem">
          {tested.problem}
        </p>
      )}
      {tested?.ok && (
        <fieldset className="model-form__models" data-testid="connection-test-result">
          <legend>
            {tested.models.length === 0
              ? 'It answered, and lists no models'
              : `It lists ${tested.models.length} ${tested.models.length === 1 ? 'model' : 'models'}: offer`}
          </legend>
          <label className="model-form__check">
            <input
              type="checkbox"
              checked={every}
              onChange={(e) => setEvery(e.target.checked)}
              data-testid="connection-all-models"
            />
            every model it lists, now and later
          </label>
          {!every &&
            tested.models.map((id) => (
              <label key={id} className="model-form__check">
                <input
                  type="checkbox"
                  checked={chosen.has(id)}
                  onChange={() => toggle(id)}
                  data-testid="connection-model"
                  data-model={id}
                />
                <code>{id}</code>
              </label>
            ))}
        </fieldset>
      )}
      {error && (
        <p className="model-form__problem" role="alert" data-testid="connection-error">
          {error}
        </p>
      )}
    </form>
  );
}

export function ModelsSection({ models, connections }: AdminModels) {
  const router = useRouter();
  const [, startTransition] = useTransition();
  const [editing, setEditing] = useState<AdminConnection | null>(null);
  const [error, setError] = useState<string | null>(null);
  const names = new Map(connections.map((c) => [c.id, c.name]));

  async function remove(c: AdminConnection) {
    setError(null);
    const answer = await send(`/api/admin/model-connections/${encodeURIComponent(c.id)}`, 'DELETE');
    if (!answer.ok) return setError(answer.error);
    if (editing?.id === c.id) setEditing(null);
    startTransition(() => router.refresh());
  }

  return (
    <>
      <p className="muted small">
        What a new chat can pick. A server added here is offered at once, no restart; its key is stored encrypted (with
        a key from <code>SKILLCHAT_AUTH_SECRET</code>) and never shown again. A provider set in the environment wins
        over the same one added here.
      </p>
      <AdminTable
        columns={[{ label: 'Model' }, { label: 'Provider' }, { label: 'From' }]}
        empty={{ testId: 'models-empty', text: 'No models.' }}
        rows={models.map((m) => (
          <tr key={m.id} data-testid="model-origin" data-model={m.id} data-source={m.source}>
            <td>{m.label}</td>
            <td>{m.provider}</td>
            <td>
              {SOURCE[m.source]}
              {m.connectionId ? `: ${names.get(m.connectionId) ?? m.connectionId}` : ''}
            </td>
          </tr>
        ))}
      />
      <h3>Added here</h3>
      <AdminTable
        columns={[
          { label: 'Name' },
          { label: 'Kind' },
          { label: 'Address' },
          { label: 'Offers' },
          { label: 'Key' },
          { label: 'Change', hidden: true },
        ]}
        empty={{ testId: 'connections-empty', text: 'None yet: add one below.' }}
        rows={connections.map((c) => (
          <tr key={c.id} data-testid="connection-row" data-connection={c.id}>
            <td>
              {c.name}
              {c.overridden && (
                <div className="muted small" data-testid="connection-overridden">
                  Not used: {c.overridden}
                </div>
              )}
            </td>
            <td>{kindOf(c.kind).label}</td>
            <td>
              <code>{c.baseUrl}</code>
            </td>
            <td>{c.models === null ? 'every model it lists' : c.models.join(', ') || 'none'}</td>
            <td data-testid="connection-key-cell">
              {c.keyProblem ? (
                <span className="secret-status--problem">{c.keyProblem}</span>
              ) : c.keySet ? (
                'set'
              ) : (
                'none'
              )}
            </td>
            <td className="model-row__actions">
              <button
                type="button"
                className="button button--outline button--small"
                onClick={() => setEditing(c)}
                data-testid="connection-edit"
              >
                Edit
              </button>
              <button
                type="button"
                className="button button--danger button--small"
                onClick={() => void remove(c)}
                data-testid="connection-remove"
              >
                Remove
              </button>
            </td>
          </tr>
        ))}
      />
      {error && (
        <p className="model-form__problem" role="alert">
          {error}
        </p>
      )}
      <h3>{editing ? `Edit ${editing.name}` : 'Add a model server'}</h3>
      <ConnectionForm key={editing?.id ?? 'new'} editing={editing} onDone={() => setEditing(null)} />
    </>
  );
}
