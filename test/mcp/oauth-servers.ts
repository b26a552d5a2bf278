/**
 * A loopback MCP server that asks each person to sign in, and its authorization server, for tests: one node:http
 * server on 127.0.0.1. The MCP side is the SDK's (`createMcpHandler`, `requireBearerAuth`, `oauthMetadataResponse`
 * for the protected resource metadata); the authorization server is the minimal one the SDK's client needs (the SDK
 * ships its router only for Express): RFC 8414 metadata, dynamic client registration, an `/authorize` that approves
 * at once as `approveAs` (redirecting with the code, the state and `iss`), and `/token` for the authorization code
 * with PKCE (S256) and for refresh tokens.
 *
 * Tool: `whoami` answers `signed in as <person>`. `expireAccessTokens()` makes every access token fail (the next
 * request refreshes), `revokeAll()` every token of every kind.
 *
 * Options for the cases around the sign-in: `stepUpScope` adds the tool `publish`, which answers 403
 * `insufficient_scope` (asking for that scope) to a token without it; `revocation` adds an RFC 7009
 * `revocation_endpoint` that records each request (`revocations`) and forgets the token, or answers 503 (`'fails'`);
 * `moveAuthorizationServer()` makes the resource metadata name a second authorization server (`<base>/next`, its own
 * registrations and tokens) and refuses every token of the first.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AuthInfo,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  inputRequired,
  McpServer,
  OAuthError,
  OAuthErrorCode,
  oauthMetadataResponse,
  requireBearerAuth,
} from '@modelcontextprotocol/server';

export interface OAuthMcpServer {
  /** The MCP endpoint (`.../mcp`). */
  url: string;
  issuer: string;
  /** Who the next `/authorize` approves as. */
  approveAs: string;
  /** Every access and refresh token issued. */
  issued: string[];
  /** Requests by path, in order (`/register`, `/token` ...). */
  requests: string[];
  /** The grant types `/token` was asked for, in order. */
  grants: string[];
  /** Each revocation request: the `token_type_hint`, whether the token was one issued, the client that sent it. */
  revocations: Array<{ hint: string | null; known: boolean; clientId: string | null }>;
  /** The `scope` of each `/authorize` request, in order. */
  scopesAsked: string[];
  /** The issuer of each `/register` request, in order. */
  registeredAt: string[];
  expireAccessTokens(): void;
  revokeAll(): void;
  moveAuthorizationServer(): void;
  close(): Promise<void>;
}

interface Grant {
  person: string;
  clientId: string;
  scope: string;
  /** The authorization server that issued it. */
  issuer: string;
  resource?: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');
const token = (kind: string) => `${kind}_${randomBytes(18).toString('base64url')}`;

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function send(res: http.ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

export async function startOAuthMcpServer(
  options: { accessTtlSec?: number; scopes?: string[]; stepUpScope?: string; revocation?: 'ok' | 'fails' } = {},
): Promise<OAuthMcpServer> {
  const scopes = options.scopes ?? ['mcp:tools'];
  const clients = new Map<string, { redirectUris: string[]; issuer: string }>();
  const codes = new Map<string, Grant & { challenge: string; redirectUri: string }>();
  const access = new Map<string, Grant & { expiresAt: number }>();
  const refresh = new Map<string, Grant>();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  /** The authorization server at `base + prefix` ('' the first, '/next' the one moved to). */
  const metadataAt = (prefix: string) => ({
    issuer: `${base}${prefix}`,
    authorization_endpoint: `${base}${prefix}/authorize`,
    token_endpoint: `${base}${prefix}/token`,
    registration_endpoint: `${base}${prefix}/register`,
    ...(options.revocation ? { revocation_endpoint: `${base}${prefix}/revoke` } : {}),
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    authorization_response_iss_parameter_supported: true,
    scopes_supported: [...scopes, ...(options.stepUpScope ? [options.stepUpScope] : [])],
  });
  let prefix = '';
  const metadataOptions = {
    oauthMetadata: metadataAt(prefix),
    resourceServerUrl: mcpUrl,
    scopesSupported: scopes,
    resourceName: 'skillchat test',
    dangerouslyAllowInsecureIssuerUrl: true,
  };
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(mcpUrl);
  const gate = requireBearerAuth({
    resourceMetadataUrl,
    verifier: {
      async verifyAccessToken(value): Promise<AuthInfo> {
        const found = access.get(value);
        if (!found || found.expiresAt <= Date.now() || found.issuer !== `${base}${prefix}`) {
          throw new OAuthError(OAuthErrorCode.InvalidToken, 'the token is unknown or expired');
        }
        return {
          token: value,
          clientId: found.clientId,
          scopes: found.scope.split(' ').filter(Boolean),
          expiresAt: Math.floor(found.expiresAt / 1000),
          extra: { person: found.person },
        };
      },
    },
  });
  const mcp = createMcpHandler((ctx) => {
    const server = new McpServer({ name: 'skillchat-test-oauth', version: '1.0.0' });
    const person = String(ctx.authInfo?.extra?.person ?? 'nobody');
    server.registerTool('whoami', { description: 'Says who signed in.' }, async () => ({
      content: [{ type: 'text', text: `signed in as ${person}` }],
    }));
    // Asks the person during the call (elicitation), as a hosted server may.
    server.registerTool('label', { description: 'Asks the person for a label.' }, async (ctx) => {
      const answer = ctx.mcpReq.inputResponses?.label as { action?: string; content?: { label?: string } } | undefined;
      if (answer?.action === 'accept')
        return { content: [{ type: 'text', text: `${person} chose ${answer.content?.label}` }] };
      if (answer?.action) return { content: [{ type: 'text', text: `${person}: ${answer.action}` }] };
      return inputRequired({
        inputRequests: {
          label: inputRequired.elicit({
            message: 'Which label?',
            requestedSchema: { type: 'object', properties: { label: { type: 'string', default: 'urgent' } } },
          }),
        },
      });
    });
    if (options.stepUpScope) {
      server.registerTool('publish', { description: 'Needs more scope than signing in grants.' }, async () => ({
        content: [{ type: 'text', text: `${person} published` }],
      }));
    }
    return server;
  });

  /** 403 `insufficient_scope` for a call of `publish` whose token lacks `stepUpScope` (RFC 6750 §3.1). */
  const scopeRefusal = (body: Buffer, authInfo: AuthInfo): Response | null => {
    const wanted = options.stepUpScope;
    if (!wanted || authInfo.scopes.includes(wanted)) return null;
    const message = JSON.parse(body.toString('utf8') || '{}') as { method?: string; params?: { name?: string } };
    if (message.method !== 'tools/call' || message.params?.name !== 'publish') return null;
    const challenge = `Bearer error="insufficient_scope", scope="${wanted}", resource_metadata="${resourceMetadataUrl}"`;
    return new Response(JSON.stringify({ error: 'insufficient_scope' }), {
      status: 403,
      headers: { 'content-type': 'application/json', 'www-authenticate': challenge },
    });
  };

  /** RFC 7009: forgets the token (either kind) and answers 200 even for one it does not know. */
  const revokeEndpoint = (form: URLSearchParams, authorization: string | null): Response => {
    const value = form.get('token') ?? '';
    const basic = authorization?.startsWith('Basic ')
      ? Buffer.from(authorization.slice(6), 'base64').toString('utf8').split(':')[0]
      : undefined;
    fixture.revocations.push({
      hint: form.get('token_type_hint'),
      known: access.has(value) || refresh.has(value),
      clientId: form.get('client_id') ?? basic ?? null,
    });
    if (options.revocation === 'fails') return json(503, { error: 'temporarily_unavailable' });
    access.delete(value);
    refresh.delete(value);
    return new Response(null, { status: 200 });
  };

  const issue = (grant: Grant) => {
    const accessToken = token('at');
    const refreshToken = token('rt');
    const ttl = options.accessTtlSec ?? 3600;
    access.set(accessToken, { ...grant, expiresAt: Date.now() + ttl * 1000 });
    refresh.set(refreshToken, grant);
    fixture.issued.push(accessToken, refreshToken);
    return json(200, {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ttl,
      refresh_token: refreshToken,
      scope: grant.scope,
    });
  };

  const tokenEndpoint = (form: URLSearchParams): Response => {
    const grantType = form.get('grant_type') ?? '';
    fixture.grants.push(grantType);
    if (grantType === 'authorization_code') {
      const code = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (!code || sha256(form.get('code_verifier') ?? '') !== code.challenge) {
        return json(400, { error: 'invalid_grant', error_description: 'bad code or verifier' });
      }
      if (form.get('redirect_uri') !== code.redirectUri) return json(400, { error: 'invalid_grant' });
      return issue(code);
    }
    if (grantType === 'refresh_token') {
      const grant = refresh.get(form.get('refresh_token') ?? '');
      if (!grant) return json(400, { error: 'invalid_grant', error_description: 'unknown refresh token' });
      refresh.delete(form.get('refresh_token') ?? '');
      return issue(grant);
    }
    return json(400, { error: 'unsupported_grant_type' });
  };

  const fixture: OAuthMcpServer = {
    url: mcpUrl.href,
    issuer: base,
    approveAs: 'alice',
    issued: [],
    requests: [],
    grants: [],
    expireAccessTokens() {
      for (const grant of access.values()) grant.expiresAt = 0;
    },
    revokeAll() {
      access.clear();
      refresh.clear();
    },
    revocations: [],
    scopesAsked: [],
    registeredAt: [],
    moveAuthorizationServer() {
      prefix = '/next';
      metadataOptions.oauthMetadata = metadataAt(prefix);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  server.on('request', async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    fixture.requests.push(url.pathname);
    const body = await readBody(req);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const request = new Request(url, {
      method: req.method ?? 'GET',
      headers,
      ...(body.length ? { body: new Uint8Array(body) } : {}),
    });
    if (url.pathname === '/.well-known/oauth-authorization-server/next')
      return send(res, json(200, metadataAt('/next')));
    const known = oauthMetadataResponse(request, metadataOptions);
    if (known) return send(res, known);
    // Each authorization server's endpoints under its own prefix; a client is known only where it registered.
    const at = url.pathname.startsWith('/next/') ? '/next' : '';
    const issuer = `${base}${at}`;
    const route = url.pathname.slice(at.length);
    if (route === '/register' && req.method === 'POST') {
      const asked = JSON.parse(body.toString('utf8')) as { redirect_uris: string[] };
      const clientId = `client_${randomBytes(8).toString('hex')}`;
      clients.set(clientId, { redirectUris: asked.redirect_uris, issuer });
      fixture.registeredAt.push(issuer);
      return send(
        res,
        json(201, { ...asked, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000) }),
      );
    }
    if (route === '/authorize') {
      const q = url.searchParams;
      const client = clients.get(q.get('client_id') ?? '');
      const redirectUri = q.get('redirect_uri') ?? '';
      fixture.scopesAsked.push(q.get('scope') ?? '');
      if (
        client?.issuer !== issuer ||
        !client.redirectUris.includes(redirectUri) ||
        q.get('code_challenge_method') !== 'S256'
      ) {
        return send(res, json(400, { error: 'invalid_request' }));
      }
      const code = token('code');
      codes.set(code, {
        person: fixture.approveAs,
        clientId: q.get('client_id')!,
        issuer,
        scope: q.get('scope') ?? scopes.join(' '),
        challenge: q.get('code_challenge') ?? '',
        redirectUri,
        ...(q.get('resource') ? { resource: q.get('resource')! } : {}),
      });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('iss', issuer);
      if (q.get('state')) back.searchParams.set('state', q.get('state')!);
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (route === '/token' && req.method === 'POST') {
      return send(res, tokenEndpoint(new URLSearchParams(body.toString('utf8'))));
    }
    if (route === '/revoke' && req.method === 'POST' && options.revocation) {
      return send(res, revokeEndpoint(new URLSearchParams(body.toString('utf8')), req.headers.authorization ?? null));
    }
    if (url.pathname === '/mcp') {
      const authInfo = await gate(request);
      if (authInfo instanceof Response) return send(res, authInfo);
      const refused = scopeRefusal(body, authInfo);
      if (refused) return send(res, refused);
      return send(res, await mcp.fetch(request, { authInfo }));
    }
    return send(res, json(404, { error: 'not_found' }));
  });
  return fixture;
}
