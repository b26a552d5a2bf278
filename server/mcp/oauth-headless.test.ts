import { afterEach, describe, expect, it } from 'vitest';
import { type OAuthMcpServer, startOAuthMcpServer } from '../../test/mcp/oauth-servers';
import { connectWithHeadlessOAuth } from './oauth-headless';

describe('connectWithHeadlessOAuth', () => {
  let server: OAuthMcpServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('registers, signs in with PKCE, calls a tool, and refreshes when the access token lapses', async () => {
    server = await startOAuthMcpServer();
    server.approveAs = 'conformance';
    const { client } = await connectWithHeadlessOAuth(server.url);
    const first = await client.callTool({ name: 'whoami', arguments: {} });
    expect(first.content).toEqual([{ type: 'text', text: 'signed in as conformance' }]);
    expect(server.requests).toContain('/register');
    server.expireAccessTokens();
    const again = await client.callTool({ name: 'whoami', arguments: {} });
    expect(again.content).toEqual([{ type: 'text', text: 'signed in as conformance' }]);
    expect(server.grants).toEqual(['authorization_code', 'refresh_token']);
    await client.close();
  });

  it('signs in again for the union of scopes when a call is refused for want of scope (step-up)', async () => {
    server = await startOAuthMcpServer({ stepUpScope: 'mcp:write' });
    server.approveAs = 'conformance';
    const { client, authorized } = await connectWithHeadlessOAuth(server.url);
    const result = await authorized(() => client.callTool({ name: 'publish', arguments: {} }));
    expect(result.content).toEqual([{ type: 'text', text: 'conformance published' }]);
    // The sign-in asked for what the 401 named; the step-up for that and what the 403 named.
    expect(server.scopesAsked).toEqual(['mcp:tools', 'mcp:tools mcp:write']);
    await client.close();
  });

  it('registers at the new authorization server when the resource metadata names another one', async () => {
    server = await startOAuthMcpServer();
    const { client, authorized } = await connectWithHeadlessOAuth(server.url);
    server.moveAuthorizationServer();
    const result = await authorized(() => client.callTool({ name: 'whoami', arguments: {} }));
    expect(result.content).toEqual([{ type: 'text', text: 'signed in as alice' }]);
    // (The transport's request and its event stream may each meet the refusal and register: both at the new one.)
    expect(new Set(server.registeredAt)).toEqual(new Set([server.issuer, `${server.issuer}/next`]));
    await client.close();
  });
});
