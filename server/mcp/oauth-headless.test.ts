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
});
