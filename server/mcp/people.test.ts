import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type OAuthMcpServer, startOAuthMcpServer } from '../../test/mcp/oauth-servers';
import { closeDb, type Db, openDb, sqliteDatabase } from '../db/client';
import { deriveSecretsKey } from '../secrets/crypto';
import { resolveMcpConfig } from './config';
import { createMcpManager, type McpManager } from './manager';
import { createMcpConnectionStore, type McpConnectionStore } from './oauth-store';
import { createPersonalMcp, McpNeedsConnectError, type PersonalMcp } from './people';

const REDIRECT = 'http://127.0.0.1:3000/api/mcp/oauth/callback';
const CALL = { timeoutMs: 5000 };

/** What the person's browser does: opens the authorization URL and follows its redirect back to the callback. */
async function approve(authorizationUrl: string): Promise<URLSearchParams> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = new URL(response.headers.get('location')!);
  expect(location.href.startsWith(REDIRECT)).toBe(true);
  return location.searchParams;
}

let server: OAuthMcpServer;
let db: Db;
let store: McpConnectionStore;
let people: PersonalMcp;
let manager: McpManager;
let logged: string[];

async function connect(userId: string) {
  server.approveAs = userId;
  const start = await people.begin(userId, 'notes', { redirectUrl: REDIRECT, returnTo: '/settings' });
  if (start.connected) throw new Error('expected a sign-in');
  return people.finish(userId, await approve(start.authorizationUrl));
}

function setUp(entry: Record<string, unknown>) {
  const config = resolveMcpConfig({ mcpServers: { notes: { url: server.url, ...entry } } });
  logged = [];
  manager = createMcpManager(config, { env: {}, appDir: '/', log: (l) => logged.push(l) });
  store = createMcpConnectionStore(sqliteDatabase(db), () =>
    deriveSecretsKey('an auth secret of thirty-two characters!'),
  );
  people = createPersonalMcp({ config, manager, store, env: {}, log: (l) => logged.push(l) });
}

beforeEach(async () => {
  server = await startOAuthMcpServer();
  db = openDb(':memory:');
});
afterEach(async () => {
  await people.close();
  await manager.close();
  await server.close();
  closeDb(db);
});

describe('MCP servers each person connects', () => {
  it('connects a person, calls a tool as them, refreshes, and forgets them on revoke', async () => {
    setUp({ auth: { kind: 'oauth' } });
    manager.start();
    expect(manager.list()[0]).toMatchObject({ status: 'per-person' });
    expect(await connect('alice')).toEqual({ ok: true, returnTo: '/settings', server: 'notes' });
    expect(server.requests).toContain('/register');

    const alice = await people.forPerson('alice');
    expect(alice.servers).toEqual([
      {
        label: 'notes',
        connected: true,
        tools: [
          expect.objectContaining({ name: 'whoami', wireName: 'mcp_notes_whoami' }),
          expect.objectContaining({ name: 'label', wireName: 'mcp_notes_label' }),
        ],
      },
    ]);
    const result = await alice.call('notes', 'whoami', {}, CALL);
    expect(result.content).toEqual([{ type: 'text', text: 'signed in as alice' }]);

    // A second person: not connected, the tools known from alice's listing, to be connected before use.
    const bob = await people.forPerson('bob');
    expect(bob.servers).toEqual([
      {
        label: 'notes',
        connected: false,
        tools: [expect.objectContaining({ name: 'whoami' }), expect.objectContaining({ name: 'label' })],
      },
    ]);

    server.expireAccessTokens();
    expect((await alice.call('notes', 'whoami', {}, CALL)).content).toEqual([
      { type: 'text', text: 'signed in as alice' },
    ]);
    expect(server.grants).toEqual(['authorization_code', 'refresh_token']);

    expect((await people.connections(null)).map((c) => [c.userId, c.server, c.connected])).toEqual([
      ['alice', 'notes', true],
    ]);
    expect(await people.disconnect('alice', 'notes')).toBe(true);
    expect((await people.forPerson('alice')).servers[0]).toMatchObject({ connected: false });
    expect(await people.connections(null)).toEqual([]);

    // No token anywhere a log line, a listing or the connection list shows.
    const shown = JSON.stringify([logged, manager.list(), await people.connections(null)]);
    for (const token of server.issued) expect(shown).not.toContain(token);
  });

  it("a person's server may ask during a call: the question reaches the call's own way of asking", async () => {
    setUp({ auth: { kind: 'oauth' } });
    manager.start();
    await connect('alice');
    const alice = await people.forPerson('alice');
    const asked: unknown[] = [];
    const answered = await alice.call(
      'notes',
      'label',
      {},
      {
        ...CALL,
        elicit: async (params) => {
          asked.push(params);
          return { action: 'accept', content: { label: 'later' } };
        },
      },
    );
    expect(answered.content).toEqual([{ type: 'text', text: 'alice chose later' }]);
    expect(asked).toEqual([expect.objectContaining({ message: 'Which label?' })]);
    // A call that says nothing of how to ask has the question declined, never left waiting.
    expect((await alice.call('notes', 'label', {}, CALL)).content).toEqual([{ type: 'text', text: 'alice: decline' }]);
  });

  it('tells a call that the person must connect again when the server revoked every token', async () => {
    setUp({ auth: { kind: 'oauth' } });
    await connect('alice');
    const alice = await people.forPerson('alice');
    server.revokeAll();
    await expect(alice.call('notes', 'whoami', {}, CALL)).rejects.toBeInstanceOf(McpNeedsConnectError);
    expect((await people.forPerson('alice')).servers[0]).toMatchObject({ connected: false });
  });

  it('a call refused for want of scope asks the person to connect again to grant it, and that sign-in asks for both', async () => {
    await server.close();
    server = await startOAuthMcpServer({ stepUpScope: 'mcp:write' });
    setUp({ auth: { kind: 'oauth', scopes: ['mcp:tools'] } });
    await connect('alice');
    const alice = await people.forPerson('alice');
    expect((await alice.call('notes', 'whoami', {}, CALL)).content).toEqual([
      { type: 'text', text: 'signed in as alice' },
    ]);
    const refused = await alice.call('notes', 'publish', {}, CALL).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpNeedsConnectError);
    expect((refused as McpNeedsConnectError).scopes).toEqual(['mcp:write']);
    expect((refused as Error).message).toMatch(/connect again to grant mcp:write/);

    // The next sign-in asks for what was granted and what the server asked for, even though a refresh would work.
    const start = await people.begin('alice', 'notes', { redirectUrl: REDIRECT });
    if (start.connected) throw new Error('expected a sign-in, not a refresh');
    expect(new URL(start.authorizationUrl).searchParams.get('scope')?.split(' ').sort()).toEqual([
      'mcp:tools',
      'mcp:write',
    ]);
    expect(await people.finish('alice', await approve(start.authorizationUrl))).toMatchObject({ ok: true });
    const again = await people.forPerson('alice');
    expect((await again.call('notes', 'publish', {}, CALL)).content).toEqual([
      { type: 'text', text: 'alice published' },
    ]);
  });

  it('registers again at the new authorization server when the server moved to another one', async () => {
    setUp({ auth: { kind: 'oauth' } });
    await connect('alice');
    expect(server.registeredAt).toEqual([server.issuer]);
    server.moveAuthorizationServer();
    // The refused token sends the client to the resource metadata again: it names the new server, where the client
    // registers (the old registration belongs to the old issuer) before the person is asked to sign in there.
    expect((await people.forPerson('alice')).servers[0]).toMatchObject({ connected: false });
    expect(server.registeredAt).toEqual([server.issuer, `${server.issuer}/next`]);
    expect(await connect('alice')).toMatchObject({ ok: true });
    const alice = await people.forPerson('alice');
    expect((await alice.call('notes', 'whoami', {}, CALL)).content).toEqual([
      { type: 'text', text: 'signed in as alice' },
    ]);
    expect(server.registeredAt).toEqual([server.issuer, `${server.issuer}/next`]);
  });

  it('revokes the tokens at the authorization server on disconnect, refresh token first', async () => {
    await server.close();
    server = await startOAuthMcpServer({ revocation: 'ok' });
    setUp({ auth: { kind: 'oauth' } });
    await connect('alice');
    await (await people.forPerson('alice')).call('notes', 'whoami', {}, CALL);
    expect(await people.disconnect('alice', 'notes')).toBe(true);
    expect(server.revocations).toEqual([
      { hint: 'refresh_token', known: true, clientId: expect.stringMatching(/^client_/) },
      { hint: 'access_token', known: true, clientId: expect.stringMatching(/^client_/) },
    ]);
    expect(await people.connections(null)).toEqual([]);
    expect(logged).toEqual([]);
  });

  it('forgets the connection even when the authorization server refuses to revoke, and logs no token', async () => {
    await server.close();
    server = await startOAuthMcpServer({ revocation: 'fails' });
    setUp({ auth: { kind: 'oauth' } });
    await connect('alice');
    expect(await people.disconnect('alice', 'notes')).toBe(true);
    expect(server.revocations).toHaveLength(1);
    expect(await people.connections(null)).toEqual([]);
    expect(logged).toEqual([expect.stringMatching(/revoking a person's tokens .* failed \(.*503/)]);
    for (const token of server.issued) expect(logged.join('\n')).not.toContain(token);
  });

  it('refuses a callback whose state is not the one it sent', async () => {
    setUp({ auth: { kind: 'oauth' } });
    const start = await people.begin('alice', 'notes', { redirectUrl: REDIRECT });
    if (start.connected) throw new Error('expected a sign-in');
    const params = await approve(start.authorizationUrl);
    params.set('state', `notes.${'x'.repeat(32)}`);
    expect(await people.finish('alice', params)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/connect again/),
    });
    // Nor may another person finish alice's sign-in.
    const again = await approve(start.authorizationUrl);
    expect(await people.finish('bob', again)).toMatchObject({ ok: false });
    expect(server.grants).toEqual([]);
  });

  it('recognises a server that answers 401 with OAuth metadata though its entry does not say so', async () => {
    setUp({});
    manager.start();
    await expect.poll(() => manager.list()[0]?.status, { timeout: 5000 }).toBe('per-person');
    expect(manager.list()[0]?.reason).toMatch(/401/);
    expect(people.servers()).toEqual([expect.objectContaining({ label: 'notes', declared: false })]);
    expect(await connect('alice')).toMatchObject({ ok: true });
    expect((await (await people.forPerson('alice')).call('notes', 'whoami', {}, CALL)).content).toEqual([
      { type: 'text', text: 'signed in as alice' },
    ]);
  });

  it("leaves a server with the operator's own Authorization header failing as before", async () => {
    setUp({ headers: { Authorization: 'Bearer wrong' } });
    manager.start();
    await expect.poll(() => manager.list()[0]?.status, { timeout: 5000 }).toBe('failed');
    expect(people.servers()).toEqual([]);
  });
});
