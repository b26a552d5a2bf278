'use client';
/**
 * Set, replace or clear one secret's value (the shared one on /admin, the person's own on /settings). The value goes
 * to the server once and is never shown again: the input is a password field, emptied after each save.
 */
import { useRouter } from 'next/navigation';
import { type FormEvent, useState, useTransition } from 'react';
import { errorMessageFrom } from '@/components/lib/api';

export function SecretValueForm({ name, set, endpoint }: { name: string; set: boolean; endpoint: string }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [, startTransition] = useTransition();

  async function send(method: 'PUT' | 'DELETE', value?: string): Promise<boolean> {
    setBusy(true);
    setError(null);
    try {
      const response = await fetch(endpoint, {
        method,
        credentials: 'same-origin',
        ...(value === undefined
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ value }) }),
      });
      if (!response.ok) {
        setError(errorMessageFrom(await response.text(), `The server refused (${response.status})`));
        return false;
      }
      startTransition(() => router.refresh());
      return true;
    } catch {
      setError('The server did not answer');
      return false;
    } finally {
      setBusy(false);
    }
  }

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    if (await send('PUT', String(new FormData(form).get('value') ?? ''))) form.reset();
  }

  return (
    <form className="secret-form" onSubmit={save} data-testid="secret-form" data-secret={name}>
      <label>
        <span className="visually-hidden">{set ? `New value of ${name}` : `Value of ${name}`}</span>
        <input
          type="password"
          name="value"
          required
          minLength={8}
          autoComplete="off"
          spellCheck={false}
          placeholder={set ? 'New value' : 'Value'}
          data-testid="secret-value"
        />
      </label>
      <button type="submit" className="button button--primary button--small" disabled={busy} data-testid="secret-save">
        {set ? 'Replace' : 'Set'}
      </button>
      {set && (
        <button
          type="button"
          className="button button--danger button--small"
          disabled={busy}
          onClick={() => void send('DELETE')}
          data-testid="secret-clear"
        >
          Clear
        </button>
      )}
      {error && (
        <p className="secret-form__error" role="alert" data-testid="secret-error">
          {error}
        </p>
      )}
    </form>
  );
}
