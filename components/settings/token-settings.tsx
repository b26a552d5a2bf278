'use client';
/** Make, list and revoke personal access tokens (`/api/me/tokens`). A new token is shown once, with a copy button. */
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import type { PersonalTokenView as TokenView } from '@/server/auth/personal-tokens';

async function errorOf(response: Response): Promise<string> {
  const body = (await response.json().catch(() => null)) as { error?: unknown } | null;
  return typeof body?.error === 'string' ? body.error : `The server refused (${response.status}).`;
}

function when(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : 'never';
}

export function TokenSettings() {
  const [tokens, setTokens] = useState<TokenView[] | null>(null);
  const [fresh, setFresh] = useState<{ name: string; token: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    const response = await fetch('/api/me/tokens');
    if (response.ok) setTokens(((await response.json()) as { tokens: TokenView[] }).tokens);
    else setError(await errorOf(response));
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get('name') ?? '');
    setBusy(true);
    setError(null);
    const response = await fetch('/api/me/tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    if (response.ok) {
      const body = (await response.json()) as { token: string; created: TokenView };
      setFresh({ name: body.created.name, token: body.token });
      form.reset();
      await load();
    } else setError(await errorOf(response));
    setBusy(false);
  }

  async function revoke(id: string) {
    setError(null);
    const response = await fetch(`/api/me/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' });
    if (!response.ok) setError(await errorOf(response));
    await load();
  }

  return (
    <div data-testid="token-settings">
      <form onSubmit={create} data-testid="token-form">
        <label className="auth-field">
          <span>New token&apos;s name (where you will use it)</span>
          <input name="name" required maxLength={100} placeholder="Claude Code on my laptop" data-testid="token-name" />
        </label>
        <button type="submit" className="button button--primary" disabled={busy} data-testid="token-create">
          Make a token
        </button>
      </form>
      {error && (
        <p className="auth-error" role="alert" data-testid="token-error">
          {error}
        </p>
      )}
      {fresh && (
        <div className="token-fresh" data-testid="token-fresh">
          <p>
            Your token <strong>{fresh.name}</strong>. Copy it now: it is not shown again.
          </p>
          <code data-testid="token-value">{fresh.token}</code>
          <button
            type="button"
            className="button button--ghost button--small"
            onClick={() => void navigator.clipboard?.writeText(fresh.token)}
          >
            Copy
          </button>
        </div>
      )}
      <ul className="token-list" data-testid="token-list">
        {tokens?.map((t) => (
          <li key={t.id} data-testid="token-row" data-revoked={t.revokedAt ? 'true' : 'false'}>
            <span className="token-list__name">{t.name}</span>
            <span className="token-list__meta">
              {t.hint} · made {when(t.createdAt)} · last used {when(t.lastUsedAt)}
              {t.revokedAt ? ` · revoked ${when(t.revokedAt)}` : ''}
            </span>
            {!t.revokedAt && (
              <button
                type="button"
                className="button button--danger button--small"
                onClick={() => void revoke(t.id)}
                data-testid="token-revoke"
              >
                Revoke
              </button>
            )}
          </li>
        ))}
        {tokens?.length === 0 && <li className="token-list__meta">No tokens yet.</li>}
      </ul>
    </div>
  );
}
