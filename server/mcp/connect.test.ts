import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type OAuthMcpServer, startOAuthMcpServer } from '../../test/mcp/oauth-servers';
import { closeDb, type Db, openDb, sqliteDatabase } from '../db/client';
import { deriveSecretsKey } from '../secrets/crypto';
import { resolveMcpConfig } from './config';
import { browserOrigin, connectionViews, disconnect, finishConnect, safeReturnTo, startConnect } from './connect';
import { createMcpManager, type McpManager } from './manager';
import { createMcpConnectionStore } from './oauth-store';
import { createPersonalMcp, type PersonalMcp } from './people';

const ORIGIN = 'http://127.0.0.1:3000';
let server: OAuthMcpServer;
let db: Db;
let manager: McpManager;
let people: PersonalMcp;

beforeEach(async () => {
  server = await startOAuthMcpServer();
  db = openDb(':memory:');
  const config = resolveMcpConfig({ mcpServers: { notes: { url: server.url, auth: { kind: 'oauth' } } } });
  manager = createMcpManager(config, { env: {}, appDir: '/' });
  const store = createMcpConnectionStore(sqliteDatabase(db), () =>
    deriveSecretsKey('an auth secret of thirty-two characters!'),
  );
  people = createPersonalMcp({ config, manager, store, env: {} });
});
afterEach(async () => {
  await people.close();
  await manager.close();
  await server.close();
  closeDb(db);
});

describe('the routes of a person’s MCP connections', () => {
  it('start, callback, list and disconnect answer without a token, and return to the page they came from', async () => {
    const started = await startConnect(people, 'alice', 'notes', { origin: ORIGIN, returnTo: '/chat/abc' });
    if (started.connected) throw new Error('expected a sign-in');
    const authorizationUrl = new URL(started.authorizationUrl);
    expect(authorizationUrl.searchParams.get('redirect_uri')).toBe(`${ORIGIN}/api/mcp/oauth/callback`);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    const back = new URL((await fetch(started.authorizationUrl, { redirect: 'manual' })).headers.get('location')!);
    const location = await finishConnect(people, 'alice', back);
    expect(location).toBe('/chat/abc?mcp_connected=notes');
    const views = await connectionViews(people, 'alice');
    expect(views).toEqual([expect.objectContaining({ server: 'notes', connected: true, scopes: ['mcp:tools'] })]);
    expect(await connectionViews(people, 'bob')).toEqual([expect.objectContaining({ connected: false })]);
    const bodies = JSON.stringify([started, location, views, await disconnect(people, 'alice', 'notes')]);
    for (const token of server.issued) expect(bodies).not.toContain(token);
    expect(await connectionViews(people, 'alice')).toEqual([expect.objectContaining({ connected: false })]);
    await expect(disconnect(people, 'alice', 'notes')).rejects.toMatchObject({ code: 'not_found:mcp_connection' });
    await expect(startConnect(people, 'alice', 'nope', { origin: ORIGIN })).rejects.toMatchObject({
      code: 'not_found:mcp_server',
    });
  });

  it('a refused or forged callback goes back with the reason, not tokens', async () => {
    const started = await startConnect(people, 'alice', 'notes', { origin: ORIGIN });
    if (started.connected) throw new Error('expected a sign-in');
    const state = new URL(started.authorizationUrl).searchParams.get('state')!;
    const denied = new URL(`${ORIGIN}/api/mcp/oauth/callback?error=access_denied&state=${encodeURIComponent(state)}`);
    expect(await finishConnect(people, 'alice', denied)).toMatch(/^\/settings\?mcp_error=the\+sign-in\+was\+declined/);
    const forged = new URL(`${ORIGIN}/api/mcp/oauth/callback?code=x&state=notes.forged`);
    expect(await finishConnect(people, 'alice', forged)).toMatch(/^\/settings\?mcp_error=/);
    expect(server.grants).toEqual([]);
  });

  it('returns only to a path of this app', () => {
    expect(safeReturnTo('/chat/1?x=2')).toBe('/chat/1?x=2');
    for (const bad of ['//evil.example', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)', 3]) {
      expect(safeReturnTo(bad)).toBe('/settings');
    }
  });

  it('builds the callback on the address the browser used, not the one Next listens on', () => {
    const request = (headers: Record<string, string>) => new Request('http://0.0.0.0:3000/api/x', { headers });
    expect(browserOrigin(request({ host: '127.0.0.1:3000' }))).toBe('http://127.0.0.1:3000');
    expect(browserOrigin(request({ host: 'chat.example.com', 'x-forwarded-proto': 'https' }))).toBe(
      'https://chat.example.com',
    );
    expect(browserOrigin(request({ host: 'bad host/x' }))).toBe('http://0.0.0.0:3000');
  });
});
