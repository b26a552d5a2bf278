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
  expireAccessTokens(): void;
  revokeAll(): void;
  close(): Promise<void>;
}

interface Grant {
  person: string;
  clientId: string;
  scope: string;
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
  options: { accessTtlSec?: number; scopes?: string[] } = {},
): Promise<OAuthMcpServer> {
  const scopes = options.scopes ?? ['mcp:tools'];
  const clients = new Map<string, { redirectUris: string[] }>();
  const codes = new Map<string, Grant & { challenge: string; redirectUri: string }>();
  const access = new Map<string, Grant & { expiresAt: number }>();
  const refresh = new Map<string, Grant>();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  const metadata = {
    issuer: base,
    authorization_endpoint: `${base}/authorize`,
    token_endpoint: `${base}/token`,
    registration_endpoint: `${base}/register`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    authorization_response_iss_parameter_supported: true,
    scopes_supported: scopes,
  };
  const metadataOptions = {
    oauthMetadata: metadata,
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
        if (!found || found.expiresAt <= Date.now()) {
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
    return server;
  });

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
    const known = oauthMetadataResponse(request, metadataOptions);
    if (known) return send(res, known);
    if (url.pathname === '/register' && req.method === 'POST') {
      const asked = JSON.parse(body.toString('utf8')) as { redirect_uris: string[] };
      const clientId = `client_${randomBytes(8).toString('hex')}`;
      clients.set(clientId, { redirectUris: asked.redirect_uris });
      return send(
        res,
        json(201, { ...asked, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000) }),
      );
    }
    if (url.pathname === '/authorize') {
      const q = url.searchParams;
      const client = clients.get(q.get('client_id') ?? '');
      const redirectUri = q.get('redirect_uri') ?? '';
      if (!client?.redirectUris.includes(redirectUri) || q.get('code_challenge_method') !== 'S256') {
        return send(res, json(400, { error: 'invalid_request' }));
      }
      const code = token('code');
      codes.set(code, {
        person: fixture.approveAs,
        clientId: q.get('client_id')!,
        scope: q.get('scope') ?? scopes.join(' '),
        challenge: q.get('code_challenge') ?? '',
        redirectUri,
        ...(q.get('resource') ? { resource: q.get('resource')! } : {}),
      });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('iss', base);
      if (q.get('state')) back.searchParams.set('state', q.get('state')!);
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      return send(res, tokenEndpoint(new URLSearchParams(body.toString('utf8'))));
    }
    if (url.pathname === '/mcp') {
      const authInfo = await gate(request);
      if (authInfo instanceof Response) return send(res, authInfo);
      return send(res, await mcp.fetch(request, { authInfo }));
    }
    return send(res, json(404, { error: 'not_found' }));
  });
  return fixture;
}
