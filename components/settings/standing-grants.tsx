'use client';
/** The person's standing shell grants (`Always allow` on a command's card), each revocable at once. */
import { useState } from 'react';
import { errorMessageFrom } from '@/components/lib/api';
import type { StandingGrantView } from '@/server/consent/standing';

export function StandingGrants({ grants: initial }: { grants: StandingGrantView[] }) {
  const [grants, setGrants] = useState(initial);
  const [error, setError] = useState<string | null>(null);

  async function revoke(id: number) {
    setError(null);
    const response = await fetch(`/api/me/grants/${id}`, { method: 'DELETE' });
    if (response.ok) setGrants((all) => all.filter((g) => g.id !== id));
    else setError(errorMessageFrom(await response.text(), `The server refused (${response.status}).`));
  }

  if (grants.length === 0) {
    return (
      <p className="muted small" data-testid="no-standing-grants">
        None. &ldquo;Always allow&rdquo; on a command&apos;s card adds one here.
      </p>
    );
  }
  return (
    <>
      <ul className="token-list" data-testid="standing-grants">
        {grants.map((g) => (
          <li key={g.id} data-testid="standing-grant" data-prefix={g.prefix}>
            <span>
              <code>{g.prefix} …</code>{' '}
              <span className="muted small">since {new Date(g.grantedAt).toLocaleString()}</span>
            </span>
            <button
              type="button"
              className="button button--outline button--small"
              onClick={() => void revoke(g.id)}
              data-testid="standing-grant-revoke"
            >
              Revoke
            </button>
          </li>
        ))}
      </ul>
      {error ? (
        <p className="auth-error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}
