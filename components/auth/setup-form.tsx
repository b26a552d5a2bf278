'use client';
/**
 * The first-run form: setup token + the first admin's email, name and password, posted to /api/setup. When the
 * server was used on loopback before, it offers (checked) to make those chats the new admin's: otherwise they stay
 * with the built-in local person and nobody sees them while the server is exposed.
 */
import { type FormEvent, useState } from 'react';

export function SetupForm({ localChats }: { localChats: number }) {
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<'created' | 'signed-in' | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const data = {
      token: form.get('token'),
      email: form.get('email'),
      name: form.get('name'),
      password: form.get('password'),
      takeOverLocalChats: localChats > 0 && form.get('takeOverLocalChats') === 'on',
    };
    setBusy(true);
    setError(null);
    try {
      const response = await fetch('/api/setup', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(data),
      });
      if (response.ok) {
        // The person who just chose the password is signed in with it, rather than asked for it again.
        const signIn = await fetch('/api/auth/sign-in/email', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: data.email, password: data.password }),
        }).catch(() => null);
        setDone(signIn?.ok ? 'signed-in' : 'created');
      } else {
        const body = (await response.json().catch(() => null)) as { error?: unknown } | null;
        setError(typeof body?.error === 'string' ? body.error : `Setup failed (${response.status}).`);
      }
    } catch {
      setError('The server did not answer. Check your connection and try again.');
    }
    setBusy(false);
  }

  if (done === 'signed-in') {
    return (
      <p data-testid="setup-done">
        The admin account is ready and you are signed in. <a href="/admin">Open the admin page</a>.
      </p>
    );
  }
  if (done) {
    return (
      <p data-testid="setup-done">
        The admin account is ready. <a href="/login?next=/admin">Sign in</a>.
      </p>
    );
  }
  return (
    <form onSubmit={onSubmit} data-testid="setup-form">
      <label className="auth-field">
        <span>Setup token</span>
        <input name="token" autoComplete="off" required spellCheck={false} data-testid="setup-token" />
      </label>
      <label className="auth-field">
        <span>Email</span>
        <input type="email" name="email" autoComplete="username" required data-testid="setup-email" />
      </label>
      <label className="auth-field">
        <span>Name</span>
        <input name="name" autoComplete="name" data-testid="setup-name" />
      </label>
      <label className="auth-field">
        <span>Password (8 characters or more)</span>
        <input
          type="password"
          name="password"
          autoComplete="new-password"
          minLength={8}
          required
          data-testid="setup-password"
        />
      </label>
      {localChats > 0 ? (
        <label className="auth-check">
          <input type="checkbox" name="takeOverLocalChats" defaultChecked data-testid="setup-take-over" />
          <span>
            Take over the <span data-testid="setup-local-chats">{localChats}</span>{' '}
            {localChats === 1 ? 'chat' : 'chats'} made on this computer before it was shared. Otherwise they stay with
            the no-login local user and show again only when the server is bound to 127.0.0.1 again.
          </span>
        </label>
      ) : null}
      {error && (
        <p className="auth-error" role="alert" data-testid="setup-error">
          {error}
        </p>
      )}
      <button type="submit" className="button button--primary" disabled={busy} data-testid="setup-submit">
        Create the admin account
      </button>
    </form>
  );
}
