/** /login: email + password. A loopback-only server has no accounts and sends the browser on. */
import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { LoginForm } from '@/components/auth/login-form';
import { currentUser } from '@/server/auth/current-user';
import { safeNextPath } from '@/server/security/check';
import { getAccessPolicy } from '@/server/security/runtime';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Sign in · skillchat' };

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const raw = (await searchParams).next;
  const next = safeNextPath(typeof raw === 'string' ? raw : null);
  if (!getAccessPolicy().exposed || (await currentUser(await headers()))) redirect(next);
  return (
    <main className="auth-page">
      <section className="auth-card" data-testid="login-page">
        <h1>Sign in to skillchat</h1>
        <p className="auth-card__lead">Use the account an admin created for you.</p>
        <LoginForm next={next} />
      </section>
    </main>
  );
}
