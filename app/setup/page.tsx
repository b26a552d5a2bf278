/**
 * /setup: the first admin of an exposed server, for whoever holds the setup token printed on the server's console.
 * Once an admin exists it only says so.
 */
import type { Metadata } from 'next';
import { SetupForm } from '@/components/auth/setup-form';
import { getApp } from '@/server/app';
import { needsFirstAdmin } from '@/server/auth/first-admin';
import { countChats } from '@/server/db/chats';
import { LOCAL_USER_ID } from '@/server/db/local-user';
import { getExposurePolicy } from '@/server/security/exposure-policy';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Set up · skillchat' };

export default async function SetupPage() {
  const app = await getApp();
  const open = getExposurePolicy().exposed && (await needsFirstAdmin(app.auth));
  // Chats made while the server was loopback-only belong to its built-in local person; offered to the first admin.
  const localChats = open ? await countChats(LOCAL_USER_ID, app.db) : 0;
  return (
    <main className="auth-page">
      <section className="auth-card" data-testid="setup-page">
        <h1>Set up skillchat</h1>
        {open ? (
          <>
            <p className="auth-card__lead">
              Create the first admin account with the setup token printed on the server&apos;s console (or run{' '}
              <code>npm run user -- add EMAIL --role admin</code> on the server).
            </p>
            <SetupForm localChats={localChats} />
          </>
        ) : (
          <p data-testid="setup-closed">
            Setup is done: this server has an admin. <a href="/login">Sign in</a>, or ask an admin for an account.
          </p>
        )}
      </section>
    </main>
  );
}
