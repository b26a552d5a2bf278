'use client';
/**
 * Rescans the skill roots (POST /api/admin/rescan), then re-renders the page with the new scan. A same-origin
 * fetch, so the browser sends the Origin header the server requires for writes.
 */
import { useRouter } from 'next/navigation';
import { useState, useTransition } from 'react';

export function RescanButton() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [refreshing, startTransition] = useTransition();

  async function rescan() {
    setBusy(true);
    setError(null);
    try {
      const response = await fetch('/api/admin/rescan', { method: 'POST', credentials: 'same-origin' });
      if (!response.ok) {
        const body: unknown = await response.json().catch(() => null);
        const message =
          body && typeof body === 'object' && 'error' in body && typeof body.error === 'string'
            ? body.error
            : `Rescan failed (${response.status})`;
        setError(message);
        return;
      }
      startTransition(() => router.refresh());
    } catch {
      setError('Rescan failed: the server did not answer');
    } finally {
      setBusy(false);
    }
  }

  const working = busy || refreshing;
  return (
    <span className="rescan">
      <button
        type="button"
        className="button button--primary"
        onClick={rescan}
        disabled={working}
        data-testid="rescan-button"
        aria-busy={working}
      >
        {working ? 'Scanning…' : 'Rescan'}
      </button>
      {error && (
        <span className="rescan__error" role="alert" data-testid="rescan-error">
          {error}
        </span>
      )}
    </span>
  );
}
