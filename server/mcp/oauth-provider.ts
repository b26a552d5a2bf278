/**
 * The MCP SDK's OAuth client, for one person and one server: `McpOAuthProvider` is the SDK's `OAuthClientProvider`
 * over that person's sealed row (oauth-store.ts). Everything OAuth itself (protected resource metadata, authorization
 * server discovery, dynamic client registration or a client ID metadata document, PKCE, scopes from the metadata or a
 * `WWW-Authenticate` challenge, refresh, step-up on `insufficient_scope`, a client registration bound to the issuer
 * that made it) is the SDK's `auth()` and its transport; this file only keeps what they hand over and says where the
 * browser goes. Two things the SDK leaves to its host are here: a refused token sends the next `auth()` to discover
 * the authorization server again (`rediscoverWhenRefused`), and the scope a step-up asked for is kept so the person's
 * next sign-in asks for it (`McpConnectionBlob.scope`).
 *
 * The sign-in is two requests of the person's browser: `beginSignIn` (the URL to send them to) and `finishSignIn`
 * (the callback's `code` and `state`; the state is checked here, as the SDK leaves that to the caller).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  auth,
  computeScopeUnion,
  type FetchLike,
  isStrictScopeSuperset,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { McpOAuthSettings } from './config';
import { resolveReferences } from './config';
import type { McpConnectionBlob, McpConnectionStore } from './oauth-store';

/** How long a started sign-in may take before its state is refused. */
export const SIGN_IN_MS = 10 * 60_000;

export interface McpOAuthTarget {
  userId: string;
  /** The server's label. */
  server: string;
  /** The MCP endpoint (the protected resource). */
  url: string;
  /** From the config; `{ kind: 'oauth' }` for a server found to ask for OAuth without saying so in the config. */
  settings: McpOAuthSettings;
}

export class McpOAuthProvider implements OAuthClientProvider {
  /** Set by the SDK when the person has to sign in (`redirectToAuthorization`). */
  authorizationUrl: URL | null = null;
  readonly clientMetadataUrl?: string;

  constructor(
    private readonly store: McpConnectionStore,
    private readonly target: McpOAuthTarget,
    private readonly options: {
      /** The callback URL (`/api/mcp/oauth/callback` on this server's address); the stored one when absent. */
      redirectUrl?: string;
      /** For `${env:NAME}` in `clientSecret`. */
      env: Readonly<Record<string, string | undefined>>;
      returnTo?: string;
    },
  ) {
    if (target.settings.clientMetadataUrl) this.clientMetadataUrl = target.settings.clientMetadataUrl;
  }

  private blob: McpConnectionBlob | null = null;
  private async load(): Promise<McpConnectionBlob> {
    this.blob ??= (await this.store.read(this.target.userId, this.target.server)) ?? {};
    return this.blob;
  }
  private async change(fn: (blob: McpConnectionBlob) => McpConnectionBlob): Promise<void> {
    this.blob = await this.store.update(this.target.userId, this.target.server, fn);
  }

  get redirectUrl(): string | undefined {
    return this.options.redirectUrl ?? this.blob?.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { settings } = this.target;
    return {
      client_name: 'skillchat',
      redirect_uris: this.redirectUrl ? [this.redirectUrl] : [],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: settings.clientSecret ? 'client_secret_basic' : 'none',
      ...(settings.scopes?.length ? { scope: settings.scopes.join(' ') } : {}),
    };
  }

  /** `<label>.<random>`: the callback finds the server by it, then compares the whole with the stored one. */
  async state(): Promise<string> {
    const state = `${this.target.server}.${randomBytes(24).toString('base64url')}`;
    await this.change((b) => ({ ...b, pending: { ...this.pendingOf(b), state } }));
    return state;
  }

  private pendingOf(b: McpConnectionBlob): NonNullable<McpConnectionBlob['pending']> {
    const fresh = b.pending && b.pending.expiresAt > Date.now() ? b.pending : undefined;
    return {
      ...fresh,
      expiresAt: fresh?.expiresAt ?? Date.now() + SIGN_IN_MS,
      ...(this.options.returnTo ? { returnTo: this.options.returnTo } : {}),
    };
  }

  async clientInformation(_ctx?: OAuthClientInformationContext): Promise<StoredOAuthClientInformation | undefined> {
    const { clientId, clientSecret } = this.target.settings;
    if (clientId) {
      const secret = clientSecret ? resolveReferences({ clientSecret }, this.options.env).clientSecret : undefined;
      return { client_id: clientId, ...(secret ? { client_secret: secret } : {}) };
    }
    const blob = await this.load();
    // A client registered for another callback URL cannot finish a sign-in that returns here: register again.
    if (blob.client && this.options.redirectUrl && blob.redirectUrl !== this.options.redirectUrl) return undefined;
    return blob.client;
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    const redirectUrl = this.redirectUrl;
    await this.change((b) => ({ ...b, client, ...(redirectUrl ? { redirectUrl } : {}) }));
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    return (await this.load()).tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    await this.change(({ pending: _, ...b }) => ({ ...b, tokens, tokensAt: Date.now() }));
  }

  /** Keeps the URL for the browser, and the scope it asks for: a step-up's union is asked again at the next sign-in. */
  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.authorizationUrl = authorizationUrl;
    const scope = authorizationUrl.searchParams.get('scope');
    if (scope) await this.change((b) => ({ ...b, scope }));
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    const redirectUrl = this.redirectUrl;
    await this.change((b) => ({
      ...b,
      ...(redirectUrl ? { redirectUrl } : {}),
      pending: { ...this.pendingOf(b), verifier },
    }));
  }

  async codeVerifier(): Promise<string> {
    const verifier = (await this.load()).pending?.verifier;
    if (!verifier) throw new Error('no sign-in is under way for this server');
    return verifier;
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.change((b) => ({ ...b, discovery }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.load()).discovery;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    await this.change((b) => {
      if (scope === 'all') return {};
      const { tokens, tokensAt, client, discovery, pending, ...rest } = b;
      return {
        ...rest,
        ...(scope !== 'tokens' && tokens ? { tokens, ...(tokensAt ? { tokensAt } : {}) } : {}),
        ...(scope !== 'client' && client ? { client } : {}),
        ...(scope !== 'discovery' && discovery ? { discovery } : {}),
        ...(scope !== 'verifier' && pending ? { pending } : {}),
      };
    });
  }

  /** The state of the sign-in under way, and where to return after it. */
  async pending(): Promise<McpConnectionBlob['pending']> {
    return (await this.load()).pending;
  }
}

/**
 * `fetchFn` for a transport whose requests carry `provider`'s token: when the server refuses a token it was sent
 * (401), the stored discovery is forgotten before the SDK's `auth()` runs, so it reads the protected resource
 * metadata again and follows a server that moved to another authorization server (SEP-2352; the SDK leaves this to
 * its host: "Hosts should call invalidateCredentials with scope 'discovery' on repeated 401s"). The client
 * registration and tokens of the old issuer are then discarded by the SDK itself (their `issuer` stamp differs).
 */
export function rediscoverWhenRefused(
  provider: Pick<OAuthClientProvider, 'invalidateCredentials'>,
  fetchFn: FetchLike = fetch,
): FetchLike {
  return async (url, init) => {
    const response = await fetchFn(url, init);
    if (response.status === 401) {
      const sent = new Headers(init?.headers);
      if (/^bearer /i.test(sent.get('authorization') ?? '')) await provider.invalidateCredentials?.('discovery');
    }
    return response;
  };
}

export type SignInStart = { connected: true } | { connected: false; authorizationUrl: string };

/**
 * Starts (or renews) `target`'s connection: the SDK discovers (afresh: the server may have moved to another
 * authorization server), registers when the stored client belongs to another issuer or there is none, and builds
 * the authorization URL; when a refresh token still works no sign-in is needed. The scope asked for is the config's
 * with what the server last asked for (a step-up); a token without all of it is not refreshed but signed in again.
 */
export async function beginSignIn(
  store: McpConnectionStore,
  target: McpOAuthTarget,
  options: {
    redirectUrl: string;
    env: Readonly<Record<string, string | undefined>>;
    returnTo?: string;
    fetchFn?: typeof fetch;
  },
): Promise<SignInStart> {
  const provider = new McpOAuthProvider(store, target, options);
  await provider.invalidateCredentials('discovery');
  const stored = await store.read(target.userId, target.server);
  const scope = computeScopeUnion(target.settings.scopes?.join(' '), stored?.scope);
  const result = await auth(provider, {
    serverUrl: target.url,
    ...(scope ? { scope } : {}),
    ...(scope && stored?.tokens && isStrictScopeSuperset(scope, stored.tokens.scope)
      ? { forceReauthorization: true }
      : {}),
    ...(options.fetchFn ? { fetchFn: options.fetchFn } : {}),
  });
  if (result === 'AUTHORIZED') return { connected: true };
  if (!provider.authorizationUrl) throw new Error('the authorization server gave no address to sign in at');
  return { connected: false, authorizationUrl: provider.authorizationUrl.href };
}

/** The server label a callback's `state` names (`<label>.<random>`), or null. */
export function serverOfState(state: string | null): string | null {
  const dot = state?.indexOf('.') ?? -1;
  return state && dot > 0 ? state.slice(0, dot) : null;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export type SignInEnd = { ok: true; returnTo?: string } | { ok: false; reason: string; returnTo?: string };

/**
 * The callback: the state must be the one stored for this person and server and not lapsed; then the SDK redeems
 * the code (with the verifier, checking `iss` when sent) and the tokens are stored.
 */
export async function finishSignIn(
  store: McpConnectionStore,
  target: McpOAuthTarget,
  params: URLSearchParams,
  options: { env: Readonly<Record<string, string | undefined>>; fetchFn?: typeof fetch },
): Promise<SignInEnd> {
  const provider = new McpOAuthProvider(store, target, options);
  const pending = await provider.pending();
  const returnTo = pending?.returnTo;
  const state = params.get('state') ?? '';
  if (!pending?.state || !sameText(pending.state, state) || pending.expiresAt < Date.now()) {
    return { ok: false, reason: 'this sign-in is not the one started here, or it took too long: connect again' };
  }
  const error = params.get('error');
  const code = params.get('code');
  if (error || !code) {
    await provider.invalidateCredentials('verifier');
    const said =
      error === 'access_denied' ? 'the sign-in was declined' : 'the authorization server refused the sign-in';
    return { ok: false, reason: said, ...(returnTo ? { returnTo } : {}) };
  }
  const iss = params.get('iss');
  await auth(provider, {
    serverUrl: target.url,
    authorizationCode: code,
    ...(iss ? { iss } : {}),
    ...(options.fetchFn ? { fetchFn: options.fetchFn } : {}),
  });
  return { ok: true, ...(returnTo ? { returnTo } : {}) };
}
