/**
 * /settings: the person's own secrets (the `personal` ones the operator configured: their token for a service their
 * skills call), set, replaced or cleared here and never shown again; their own skills (installed, listed, removed);
 * the commands they always allow; the MCP servers
 * that sign each person in, with Connect and Disconnect; and a way to their access tokens.
 */
import type { Metadata } from 'next';
import { pageUser } from '@/app/_lib/page-user';
import { McpConnections } from '@/components/settings/mcp-connections';
import { PersonalSecrets } from '@/components/settings/personal-secrets';
import { PersonalSkills } from '@/components/settings/personal-skills';
import { StandingGrants } from '@/components/settings/standing-grants';
import { getApp } from '@/server/app';
import { standingShellGrants } from '@/server/consent/standing';
import { listPersonalSkills, personalSkillsOn } from '@/server/install/personal';
import { connectionViews } from '@/server/mcp/connect';
import { personalSecretViews } from '@/server/secrets/manage';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Settings · skillchat' };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function SettingsPage({ searchParams }: { searchParams: SearchParams }) {
  const user = await pageUser('/settings');
  const app = await getApp();
  const secrets = await personalSecretViews(app.config.egress.secrets, app.secrets, user.id);
  const grants = await standingShellGrants(app.db, user.id);
  const connections = await connectionViews(app.mcpPeople, user.id);
  const ownSkills = await listPersonalSkills(app, user.id);
  const { mcp_error: mcpError } = await searchParams;
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
        <h2 className="settings-section">Your skills</h2>
        <p className="auth-card__lead">
          Skills only you see and use: in your chats, your <code>/</code> menu and your starters, never anyone
          else&apos;s. They are checked as the operator&apos;s installs are, and their scripts ask as shared ones do.
        </p>
        <PersonalSkills skills={ownSkills} enabled={personalSkillsOn(app.config)} />
        <h2 className="settings-section">Commands you always allow</h2>
        <p className="auth-card__lead">
          Commands starting with these run in your chats without asking, while your shell is set to ask. Anything
          chained to them (<code>;</code>, <code>&amp;&amp;</code>, <code>|</code>) must start with one too.
        </p>
        <StandingGrants grants={grants} />
        <h2 className="settings-section">MCP servers you sign in to</h2>
        <p className="auth-card__lead">
          Their tools act as you. The sign-in is kept encrypted on this server and never shown to the model or here.
        </p>
        <McpConnections
          connections={connections}
          {...(typeof mcpError === 'string' ? { error: `Not connected: ${mcpError}` } : {})}
        />
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
