/** /login: email + password. A loopback-only server has no accounts and sends the browser on. */
import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { currentUser } from '@/app/_lib/current-user';
import { LoginForm } from '@/components/auth/login-form';
import { getApp } from '@/server/app';
import { needsFirstAdmin } from '@/server/auth/first-admin';
import { safeNextPath } from '@/server/security/check';
import { getExposurePolicy } from '@/server/security/exposure-policy';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Sign in · skillchat' };

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const raw = (await searchParams).next;
  const next = safeNextPath(typeof raw === 'string' ? raw : null);
  if (!getExposurePolicy().exposed || (await currentUser(await headers()))) redirect(next);
  // Before the first admin exists nobody can have an account: say how to make one instead of sending people to an
  // admin who does not exist yet.
  const firstRun = await needsFirstAdmin((await getApp()).auth);
  return (
    <main className="auth-page">
      <section className="auth-card" data-testid="login-page">
        <h1>Sign in to skillchat</h1>
        {firstRun ? (
          <p className="auth-card__lead" data-testid="login-setup-hint">
            This server has no admin yet. Whoever runs it creates the first admin at <a href="/setup">/setup</a> with
            the one-time setup token the server printed on its console when it started (or with{' '}
            <code>npm run user -- add EMAIL --role admin</code> on the server).
          </p>
        ) : (
          <p className="auth-card__lead">Use the account an admin created for you.</p>
        )}
        <LoginForm next={next} />
      </section>
    </main>
  );
}
