/**
 * /settings: the person's own secrets (the `personal` ones the operator configured: their token for a service their
 * skills call), set, replaced or cleared here and never shown again; the commands they always allow; and a way to
 * their access tokens.
 */
import type { Metadata } from 'next';
import { pageUser } from '@/app/_lib/page-user';
import { PersonalSecrets } from '@/components/settings/personal-secrets';
import { StandingGrants } from '@/components/settings/standing-grants';
import { getApp } from '@/server/app';
import { standingShellGrants } from '@/server/consent/standing';
import { personalSecretViews } from '@/server/secrets/manage';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Settings · skillchat' };

export default async function SettingsPage() {
  const user = await pageUser('/settings');
  const app = await getApp();
  const secrets = await personalSecretViews(app.config.egress.secrets, app.secrets, user.id);
  const grants = await standingShellGrants(app.db, user.id);
  return (
    <main className="auth-page">
      <section className="auth-card settings-card" data-testid="settings-page">
        <h1>Settings</h1>
        <h2 id="your-secrets-h" className="settings-section">
          Your secrets
        </h2>
        <p className="auth-card__lead">
          Tokens your skills use for you. Your runs use yours, never anyone else&apos;s; the model and the chat never
          see the value, and it is not shown here again once saved.
        </p>
        <PersonalSecrets secrets={secrets} />
        <h2 className="settings-section">Commands you always allow</h2>
        <p className="auth-card__lead">
          Commands starting with these run in your chats without asking, while your shell is set to ask. Anything
          chained to them (<code>;</code>, <code>&amp;&amp;</code>, <code>|</code>) must start with one too.
        </p>
        <StandingGrants grants={grants} />
        <h2 className="settings-section">Access tokens</h2>
        <p className="auth-card__lead">
          <a href="/settings/tokens">Tokens for MCP clients and installers</a>
        </p>
        <p className="auth-card__lead">
          <a href="/">Back to the chats</a>
        </p>
      </section>
    </main>
  );
}
