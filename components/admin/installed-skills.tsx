'use client';
/** The skills in the install root, each with Export (a .skill download) and Uninstall (after a confirm). */
import { useRouter } from 'next/navigation';
import { useState, useTransition } from 'react';
import { errorMessageFrom } from '@/components/lib/api';

export function InstalledSkills({ names }: { names: string[] }) {
  const router = useRouter();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [, startTransition] = useTransition();

  async function uninstall(name: string) {
    if (!window.confirm(`Uninstall ${name}? Its folder is deleted.`)) return;
    setBusy(name);
    setError(null);
    try {
      const response = await fetch(`/api/admin/skills/${encodeURIComponent(name)}/uninstall`, {
        method: 'POST',
        credentials: 'same-origin',
      });
      if (!response.ok) setError(errorMessageFrom(await response.text(), `Uninstall failed (${response.status})`));
      else startTransition(() => router.refresh());
    } catch {
      setError('Uninstall failed: the server did not answer');
    } finally {
      setBusy(null);
    }
  }

  if (names.length === 0) return <p className="muted small">No skills installed here yet.</p>;
  return (
    <>
      <ul className="installed" data-testid="installed-skills">
        {names.map((name) => (
          <li key={name} data-testid="installed-skill" data-skill={name}>
            <code>{name}</code>{' '}
            <a className="small" href={`/api/admin/skills/${encodeURIComponent(name)}/export`} download>
              Export
            </a>{' '}
            <button
              type="button"
              className="button button--outline button--small"
              onClick={() => void uninstall(name)}
              disabled={busy !== null}
              data-testid="uninstall-button"
            >
              {busy === name ? 'Removing…' : 'Uninstall'}
            </button>
          </li>
        ))}
      </ul>
      {error && (
        <p className="rescan__error" role="alert" data-testid="uninstall-error">
          {error}
        </p>
      )}
    </>
  );
}
