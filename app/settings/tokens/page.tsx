/**
 * /settings/tokens: the person's personal access tokens, for pointing an MCP client (Claude Code, Codex) or an
 * installer at the skills they may use here. A token is shown once, when it is made.
 */
import type { Metadata } from 'next';
import { pageUser } from '@/app/_lib/page-user';
import { TokenSettings } from '@/components/settings/token-settings';
import { getExposurePolicy } from '@/server/security/runtime';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Access tokens · skillchat' };

export default async function TokensPage() {
  await pageUser('/settings/tokens');
  const exposed = getExposurePolicy().exposed;
  return (
    <main className="auth-page">
      <section className="auth-card settings-card" data-testid="tokens-page">
        <h1>Access tokens</h1>
        <p className="auth-card__lead">
          A token lets a program use the skills you may use here: an MCP client at <code>/mcp</code>, or an installer
          reading <code>/.well-known/agent-skills/index.json</code>. Send it as{' '}
          <code>Authorization: Bearer &lt;token&gt;</code>.{' '}
          {exposed ? null : 'This server answers on this computer only, where no token is needed.'}
        </p>
        <TokenSettings />
        <p className="auth-card__lead">
          <a href="/">Back to the chats</a>
        </p>
      </section>
    </main>
  );
}
