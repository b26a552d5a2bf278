/**
 * /admin/login: the token form. A plain HTML form posting to /api/admin/login, so it works without JavaScript;
 * the route answers with a redirect back here (with `?error=`) or to the admin page.
 */
import Link from 'next/link';
import { safeNextPath } from '@/server/security/check';
import { getAccessPolicy } from '@/server/security/runtime';

export const dynamic = 'force-dynamic';

const ERRORS: Record<string, string> = {
  unauthorized: 'Wrong token.',
  rate_limited: 'Too many failed attempts. Wait a minute and try again.',
  bad_request: 'Enter the admin token.',
  forbidden: 'Admin is disabled on this server.',
};

export default async function AdminLoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const next = safeNextPath(typeof params.next === 'string' ? params.next : null);
  const error = typeof params.error === 'string' ? (ERRORS[params.error] ?? 'Login failed.') : null;
  const admin = getAccessPolicy().admin;

  return (
    <main className="admin-main admin-main--narrow">
      <section className="card login" data-testid="admin-login">
        <h1>skillchat admin</h1>
        {admin.mode === 'open' && (
          <p>
            This server listens on loopback only, so the admin page needs no token. <Link href={next}>Open it</Link>.
          </p>
        )}
        {admin.mode === 'locked' && (
          <p className="error" data-testid="admin-locked">
            Admin is disabled: {admin.reason}. Set <code>SKILLCHAT_ADMIN_TOKEN</code> (16 characters or more) and
            restart, or start with <code>npm start</code>, which prints a token.
          </p>
        )}
        {admin.mode === 'token' && (
          <form method="post" action="/api/admin/login" data-testid="login-form">
            <p className="muted">
              This server is reachable from the network. Enter the admin token printed by <code>npm start</code> (or
              your <code>SKILLCHAT_ADMIN_TOKEN</code>).
            </p>
            <label className="field">
              <span>Admin token</span>
              <input
                type="password"
                name="token"
                autoComplete="current-password"
                required
                autoFocus
                data-testid="login-token"
              />
            </label>
            <input type="hidden" name="next" value={next} />
            {error && (
              <p className="error" role="alert" data-testid="login-error">
                {error}
              </p>
            )}
            <button type="submit" className="button button--primary" data-testid="login-submit">
              Log in
            </button>
          </form>
        )}
      </section>
    </main>
  );
}
