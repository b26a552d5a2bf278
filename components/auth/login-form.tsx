'use client';
/**
 * The sign-in form: posts to better-auth's `/api/auth/sign-in/email`, says why a sign-in failed (wrong password,
 * too many attempts, a disabled account) and goes to `next` on success with a full load, so every page renders
 * with the new session.
 */
import { type FormEvent, useState } from 'react';

async function messageOf(response: Response): Promise<string> {
  const body = (await response.json().catch(() => null)) as { error?: unknown } | null;
  if (response.status === 401) return 'Wrong email or password.';
  if (response.status === 429) {
    const wait = Number(response.headers.get('retry-after'));
    const after =
      Number.isFinite(wait) && wait > 0 ? ` Try again in ${Math.ceil(wait / 60)} min.` : ' Try again later.';
    return `Too many failed sign-ins.${after}`;
  }
  return typeof body?.error === 'string' ? body.error : `Sign-in failed (${response.status}).`;
}

export function LoginForm({ next }: { next: string }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      const response = await fetch('/api/auth/sign-in/email', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: data.get('email'), password: data.get('password') }),
      });
      if (response.ok) {
        window.location.assign(next);
        return;
      }
      setError(await messageOf(response));
    } catch {
      setError('The server did not answer. Check your connection and try again.');
    }
    setBusy(false);
  }

  return (
    <form onSubmit={onSubmit} data-testid="login-form">
      <label className="auth-field">
        <span>Email</span>
        <input type="email" name="email" autoComplete="username" required autoFocus data-testid="login-email" />
      </label>
      <label className="auth-field">
        <span>Password</span>
        <input type="password" name="password" autoComplete="current-password" required data-testid="login-password" />
      </label>
      {error && (
        <p className="auth-error" role="alert" data-testid="login-error">
          {error}
        </p>
      )}
      <button type="submit" className="button button--primary" disabled={busy} data-testid="login-submit">
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
