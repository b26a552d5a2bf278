'use client';
/**
 * An MCP server's question during a tool call (a `data-elicitation` part): a form built from the fields the server
 * read from the requested schema, with their defaults filled in, or a link to open (URL mode). Accept, Decline and
 * Cancel go to POST /api/chats/[id]/elicitations, which checks the values against the form and answers the waiting
 * call; the part is then rewritten with the outcome. The message, titles and labels are the server's text, already
 * cleaned on the server: shown as plain text, never as Markdown or HTML.
 */
import { type FormEvent, useId, useState } from 'react';
import type { ElicitationPart } from '@/server/chat/wire-types';
import type { ElicitField } from '@/server/mcp/elicitation';

const OUTCOME: Record<ElicitationPart['status'], string> = {
  waiting: 'Waiting for an answer',
  accept: 'Answered',
  decline: 'Declined',
  cancel: 'Cancelled',
  withdrawn: 'No longer waiting: the tool call ended',
};

const INPUT_TYPE = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' } as const;

function startingValues(fields: readonly ElicitField[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of fields) {
    if (field.default !== undefined) values[field.name] = field.default;
    else if (field.kind === 'boolean') values[field.name] = false;
    else if (field.kind === 'multi') values[field.name] = [];
  }
  return values;
}

function FieldInput({
  field,
  value,
  onChange,
  id,
}: {
  field: ElicitField;
  value: unknown;
  onChange: (value: unknown) => void;
  id: string;
}) {
  switch (field.kind) {
    case 'boolean':
      return <input id={id} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
    case 'enum':
      return (
        <select id={id} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)}>
          {field.default === undefined ? <option value="">Choose…</option> : null}
          {field.options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      );
    case 'multi': {
      const chosen = Array.isArray(value) ? (value as string[]) : [];
      return (
        <span className="elicitation__choices" id={id}>
          {field.options.map((o) => (
            <label key={o.value}>
              <input
                type="checkbox"
                checked={chosen.includes(o.value)}
                onChange={(e) =>
                  onChange(e.target.checked ? [...chosen, o.value] : chosen.filter((v) => v !== o.value))
                }
              />{' '}
              {o.label}
            </label>
          ))}
        </span>
      );
    }
    case 'number':
    case 'integer':
      return (
        <input
          id={id}
          type="number"
          step={field.kind === 'integer' ? 1 : 'any'}
          min={field.minimum}
          max={field.maximum}
          required={field.required}
          value={value === undefined ? '' : String(value)}
          onChange={(e) => onChange(e.target.value)}
        />
      );
    case 'string':
      return (
        <input
          id={id}
          type={field.format ? INPUT_TYPE[field.format] : 'text'}
          minLength={field.minLength}
          maxLength={field.maxLength}
          required={field.required}
          value={typeof value === 'string' ? value : ''}
          onChange={(e) => onChange(e.target.value)}
        />
      );
  }
}

export function ElicitationCard({ id, part, chatId }: { id: string; part: ElicitationPart; chatId: string | null }) {
  const { view } = part;
  const baseId = useId();
  const [values, setValues] = useState(() => (view.mode === 'form' ? startingValues(view.fields) : {}));
  const [sending, setSending] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const waiting = part.status === 'waiting';

  const send = async (action: 'accept' | 'decline' | 'cancel') => {
    if (!chatId) return;
    setSending(true);
    setProblem(null);
    try {
      const response = await fetch(`/api/chats/${encodeURIComponent(chatId)}/elicitations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id, action, ...(action === 'accept' && view.mode === 'form' ? { values } : {}) }),
      });
      if (!response.ok) {
        const body = (await response.json().catch(() => null)) as { error?: string } | null;
        setProblem(body?.error ?? `The answer was not taken (HTTP ${response.status})`);
      }
    } catch {
      setProblem('The answer could not be sent; check the connection and try again');
    } finally {
      setSending(false);
    }
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void send('accept');
  };

  return (
    <form
      className="approval elicitation"
      onSubmit={onSubmit}
      data-testid="elicitation-card"
      data-elicitation-id={id}
      data-status={part.status}
      data-mode={view.mode}
    >
      <p className="approval__question">
        The MCP server “{part.server}” asks, for the tool “{part.tool}”:
      </p>
      {view.message ? (
        <p className="approval__reason" data-testid="elicitation-message">
          {view.message}
        </p>
      ) : null}
      {view.mode === 'url' ? (
        <p className="elicitation__link">
          <a href={view.url} target="_blank" rel="noopener noreferrer" data-testid="elicitation-link">
            Open the page on {view.host}
          </a>
        </p>
      ) : (
        <div className="elicitation__fields">
          {view.fields.map((field) => {
            const fieldId = `${baseId}-${field.name}`;
            return (
              <div key={field.name} className="elicitation__field" data-testid={`elicitation-field-${field.name}`}>
                <label htmlFor={fieldId}>
                  {field.title}
                  {field.required ? ' *' : ''}
                </label>
                <FieldInput
                  id={fieldId}
                  field={field}
                  value={values[field.name]}
                  onChange={(value) => setValues((v) => ({ ...v, [field.name]: value }))}
                />
                {field.description ? <span className="approval__note">{field.description}</span> : null}
              </div>
            );
          })}
        </div>
      )}
      {problem ? (
        <p className="approval__warning" role="alert" data-testid="elicitation-problem">
          {problem}
        </p>
      ) : null}
      {waiting ? (
        <div className="approval__actions">
          <button type="submit" className="button button--primary" disabled={sending} data-testid="elicitation-accept">
            {view.mode === 'url' ? 'Done' : 'Send'}
          </button>
          <button
            type="button"
            className="button button--outline button--deny"
            disabled={sending}
            onClick={() => void send('decline')}
            data-testid="elicitation-decline"
          >
            Decline
          </button>
          <button
            type="button"
            className="button button--outline"
            disabled={sending}
            onClick={() => void send('cancel')}
            data-testid="elicitation-cancel"
          >
            Cancel
          </button>
        </div>
      ) : (
        <p className="approval__note" role="status" data-testid="elicitation-status">
          {OUTCOME[part.status]}
        </p>
      )}
    </form>
  );
}
