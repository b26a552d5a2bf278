'use client';
/**
 * The skills in the install root, each with Export (a .skill download) and Uninstall (after a confirm). The confirm is
 * a modal <dialog>: it opens on Cancel (the safe choice), Esc closes it, and the browser gives focus back to the
 * Uninstall button that opened it.
 */
import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState, useTransition } from 'react';
import { errorMessageFrom } from '@/components/lib/api';
import './install.css';

export function InstalledSkills({ names }: { names: string[] }) {
  const router = useRouter();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [, startTransition] = useTransition();
  const [confirming, setConfirming] = useState<string | null>(null);
  const dialogRef = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!confirming) return;
    dialogRef.current?.showModal();
    cancelRef.current?.focus();
  }, [confirming]);

  async function uninstall(name: string) {
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
              onClick={() => setConfirming(name)}
              disabled={busy !== null}
              data-testid="uninstall-button"
            >
              {busy === name ? 'Removing…' : 'Uninstall'}
            </button>
          </li>
        ))}
      </ul>
      {confirming ? (
        <dialog
          ref={dialogRef}
          className="confirm-dialog"
          aria-labelledby="uninstall-title"
          data-testid="uninstall-dialog"
          onClose={() => setConfirming(null)}
        >
          <p id="uninstall-title">
            Uninstall <code>{confirming}</code>? Its folder is deleted.
          </p>
          <div className="confirm-dialog__actions">
            <button
              type="button"
              ref={cancelRef}
              className="button button--ghost button--small"
              onClick={() => dialogRef.current?.close()}
              data-testid="uninstall-cancel"
            >
              Cancel
            </button>
            <button
              type="button"
              className="button button--danger button--small"
              onClick={() => {
                dialogRef.current?.close();
                void uninstall(confirming);
              }}
              data-testid="uninstall-confirm"
            >
              Uninstall
            </button>
          </div>
        </dialog>
      ) : null}
      {error && (
        <p className="rescan__error" role="alert" data-testid="uninstall-error">
          {error}
        </p>
      )}
    </>
  );
}
