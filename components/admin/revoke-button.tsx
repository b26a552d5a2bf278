'use client';
/**
 * Revokes one "always allow" grant (POST /api/admin/grants/:id/revoke), then re-renders the page without it. A
 * same-origin fetch, so the browser sends the Origin header the server requires for writes.
 */
import { useRouter } from 'next/navigation';
import { useState, useTransition } from 'react';
import { errorMessageFrom } from '@/components/lib/api';

export function RevokeButton({ grantId, skillName }: { grantId: number; skillName: string }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [refreshing, startTransition] = useTransition();

  async function revoke() {
    setBusy(true);
    setError(null);
    try {
      const response = await fetch(`/api/admin/grants/${grantId}/revoke`, {
        method: 'POST',
        credentials: 'same-origin',
      });
      if (!response.ok) {
        setError(errorMessageFrom(await response.text(), `Revoke failed (${response.status})`));
        return;
      }
      startTransition(() => router.refresh());
    } catch {
      setError('Revoke failed: the server did not answer');
    } finally {
      setBusy(false);
    }
  }

  const working = busy || refreshing;
  return (
    <span className="revoke">
      <button
        type="button"
        className="button button--outline button--small"
        onClick={revoke}
        disabled={working}
        aria-busy={working}
        aria-label={`Revoke "always allow" for ${skillName}`}
        data-testid="grant-revoke"
      >
        {working ? 'Revoking…' : 'Revoke'}
      </button>
      {error && (
        <span className="revoke__error" role="alert" data-testid="grant-revoke-error">
          {error}
        </span>
      )}
    </span>
  );
}
