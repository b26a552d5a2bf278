/**
 * Ending a person's connection at the authorization server too (RFC 7009 token revocation), before our copy of the
 * tokens is deleted: the refresh token first (revoking it usually ends the grant, access tokens with it), then the
 * access token. The SDK has no revocation call; it does have the parts used here (its discovery, the client's
 * authentication method, the refusal of a token endpoint that is neither HTTPS nor loopback). Only when the
 * authorization server's metadata names a `revocation_endpoint`, and only to the issuer that gave the tokens (never
 * a token to another server, SEP-2352). The outcome is data for a log line; it never holds a token.
 */
import {
  type AuthorizationServerMetadata,
  assertSecureTokenEndpoint,
  discoverOAuthServerInfo,
  type FetchLike,
  type OAuthClientProvider,
  selectClientAuthMethod,
} from '@modelcontextprotocol/client';

/** How long one revocation request may take: a disconnect does not wait on a slow authorization server for long. */
const REVOKE_TIMEOUT_MS = 5000;

export type RevokeOutcome =
  | { kind: 'revoked'; tokens: Array<'refresh_token' | 'access_token'> }
  | { kind: 'skipped'; reason: string }
  | { kind: 'failed'; reason: string };

type Provider = Pick<OAuthClientProvider, 'tokens' | 'clientInformation' | 'discoveryState'>;

/** The metadata of the issuer that gave the tokens: the discovery stored with them, else discovered now. */
async function issuerMetadata(
  provider: Provider,
  serverUrl: string,
  issuer: string | undefined,
  fetchFn: FetchLike,
): Promise<AuthorizationServerMetadata | undefined> {
  const stored = (await provider.discoveryState?.())?.authorizationServerMetadata;
  if (stored && (!issuer || stored.issuer === issuer)) return stored;
  const found = (await discoverOAuthServerInfo(serverUrl, { fetchFn })).authorizationServerMetadata;
  return found && (!issuer || found.issuer === issuer) ? found : undefined;
}

/** The revocation endpoint and its client authentication methods (RFC 8414 §2; OpenID metadata may have them too). */
function revocationOf(metadata: AuthorizationServerMetadata): { endpoint?: string; methods: string[] } {
  const fields: Record<string, unknown> = metadata;
  const methods = fields.revocation_endpoint_auth_methods_supported ?? metadata.token_endpoint_auth_methods_supported;
  return {
    ...(typeof fields.revocation_endpoint === 'string' ? { endpoint: fields.revocation_endpoint } : {}),
    methods: Array.isArray(methods) ? methods.filter((m): m is string => typeof m === 'string') : [],
  };
}

/** Revokes `provider`'s tokens for the MCP server at `serverUrl`; never throws (the outcome says what happened). */
export async function revokeTokens(
  provider: Provider,
  serverUrl: string,
  options: { fetchFn?: FetchLike; timeoutMs?: number } = {},
): Promise<RevokeOutcome> {
  const fetchFn = options.fetchFn ?? fetch;
  try {
    const tokens = await provider.tokens();
    if (!tokens) return { kind: 'skipped', reason: 'no tokens are stored' };
    const metadata = await issuerMetadata(provider, serverUrl, tokens.issuer, fetchFn);
    if (!metadata) return { kind: 'skipped', reason: 'the authorization server that gave the tokens is not found' };
    const revocation = revocationOf(metadata);
    if (!revocation.endpoint) {
      return { kind: 'skipped', reason: 'the authorization server has no revocation endpoint' };
    }
    const endpoint = assertSecureTokenEndpoint(revocation.endpoint);
    const client = await provider.clientInformation({ issuer: metadata.issuer });
    if (!client || (client.issuer && client.issuer !== metadata.issuer)) {
      return { kind: 'skipped', reason: 'no client registration for that authorization server' };
    }
    const method = selectClientAuthMethod(client, revocation.methods);
    const revoked: Array<'refresh_token' | 'access_token'> = [];
    const kinds = [
      ['refresh_token', tokens.refresh_token],
      ['access_token', tokens.access_token],
    ] as const;
    for (const [hint, token] of kinds) {
      if (!token) continue;
      const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' });
      const body = new URLSearchParams({ token, token_type_hint: hint });
      // The client authenticates as at the token endpoint (RFC 7009 §2.1).
      if (method === 'client_secret_basic' && client.client_secret) {
        headers.set('authorization', `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`);
      } else {
        body.set('client_id', client.client_id);
        if (method === 'client_secret_post' && client.client_secret) body.set('client_secret', client.client_secret);
      }
      const response = await fetchFn(endpoint, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(options.timeoutMs ?? REVOKE_TIMEOUT_MS),
      });
      await response.body?.cancel().catch(() => {});
      if (!response.ok) {
        return { kind: 'failed', reason: `the revocation endpoint answered ${response.status} for the ${hint}` };
      }
      revoked.push(hint);
    }
    return { kind: 'revoked', tokens: revoked };
  } catch (error) {
    // Messages of fetch and discovery name URLs and steps, not tokens (the token is only ever in a request body).
    return { kind: 'failed', reason: error instanceof Error ? error.message : String(error) };
  }
}
