/**
 * The whole OAuth flow without a browser, for a program that drives skillchat's MCP client against a server whose
 * authorization server approves at once (the conformance suite's does): the SDK's `OAuthClientProvider` kept in
 * memory, whose "redirect" fetches the authorization URL and reads the code from the answer's `Location`. Everything
 * OAuth is the SDK's, as in oauth-provider.ts: a request the server refuses for want of scope (403
 * `insufficient_scope`, a step-up) or with a token it no longer takes (401, maybe from a new authorization server)
 * makes the SDK authorize again, and `authorized()` finishes that approval and sends the request again.
 */
import {
  Client,
  type ClientOptions,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { rediscoverWhenRefused } from './oauth-provider';

/** The callback address the code is read from; nothing listens there. */
const HEADLESS_REDIRECT = 'http://127.0.0.1:1/oauth/callback';

export class HeadlessOAuthProvider implements OAuthClientProvider {
  private stored: {
    tokens?: StoredOAuthTokens;
    client?: StoredOAuthClientInformation;
    verifier?: string;
    discovery?: OAuthDiscoveryState;
  } = {};
  /** The code (and `iss`) of the last approval, for `transport.finishAuth`. */
  callback: URLSearchParams | null = null;
  readonly clientMetadataUrl?: string;

  constructor(
    private readonly options: {
      clientMetadataUrl?: string;
      /** A pre-registered client. */
      client?: StoredOAuthClientInformation;
      scope?: string;
      fetchFn?: typeof fetch;
    } = {},
  ) {
    if (options.clientMetadataUrl) this.clientMetadataUrl = options.clientMetadataUrl;
    if (options.client) this.stored.client = options.client;
  }

  get redirectUrl(): string {
    return HEADLESS_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'skillchat',
      redirect_uris: [HEADLESS_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.options.client?.client_secret ? 'client_secret_basic' : 'none',
      ...(this.options.scope ? { scope: this.options.scope } : {}),
    };
  }

  clientInformation = () => this.stored.client;
  saveClientInformation = (client: StoredOAuthClientInformation) => {
    this.stored.client = client;
  };
  tokens = () => this.stored.tokens;
  saveTokens = (tokens: StoredOAuthTokens) => {
    this.stored.tokens = tokens;
  };
  saveCodeVerifier = (verifier: string) => {
    this.stored.verifier = verifier;
  };
  codeVerifier = () => {
    if (!this.stored.verifier) throw new Error('no sign-in is under way');
    return this.stored.verifier;
  };
  saveDiscoveryState = (discovery: OAuthDiscoveryState) => {
    this.stored.discovery = discovery;
  };
  discoveryState = () => this.stored.discovery;
  invalidateCredentials = (scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') => {
    if (scope === 'all') this.stored = {};
    else if (scope === 'client') delete this.stored.client;
    else if (scope === 'tokens') delete this.stored.tokens;
    else if (scope === 'verifier') delete this.stored.verifier;
    else delete this.stored.discovery;
  };

  /** "Sends the person" to the authorization server: fetches the URL and keeps the redirect's query. */
  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const response = await (this.options.fetchFn ?? fetch)(authorizationUrl, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (!location) throw new Error(`the authorization server answered ${response.status} without a redirect`);
    this.callback = new URL(location, authorizationUrl).searchParams;
  }
}

/** How many approvals one request may need (a sign-in, then a step-up to more scope). */
const APPROVALS_PER_REQUEST = 3;

export interface HeadlessConnection {
  client: Client;
  provider: HeadlessOAuthProvider;
  /**
   * Runs `request` (a call on `client`); when the SDK stopped it to authorize again (a 401, or a step-up on 403
   * `insufficient_scope` with the union of the granted and challenged scopes), finishes that approval and runs it again.
   */
  authorized<T>(request: () => Promise<T>): Promise<T>;
}

/**
 * Connects `client` (made with `clientOptions` when not given) to `url` through OAuth without a browser: on the
 * SDK's `UnauthorizedError` the approval the provider fetched is finished with `transport.finishAuth` and the
 * connection made again. Returns the connected client, its provider (tokens in memory only) and `authorized`.
 */
export async function connectWithHeadlessOAuth(
  url: string,
  options: {
    client?: Client;
    clientOptions?: ClientOptions;
    provider?: HeadlessOAuthProvider;
    fetchFn?: typeof fetch;
    /** For the connection (the version probe or initialize); the SDK's default when absent. */
    timeoutMs?: number;
  } = {},
): Promise<HeadlessConnection> {
  const provider = options.provider ?? new HeadlessOAuthProvider(options.fetchFn ? { fetchFn: options.fetchFn } : {});
  const client = options.client ?? new Client({ name: 'skillchat', version: '0.1.0' }, options.clientOptions);
  const transport = () =>
    new StreamableHTTPClientTransport(new URL(url), {
      authProvider: provider,
      fetch: rediscoverWhenRefused(provider, options.fetchFn),
    });
  /** Finishes the approval the SDK just asked for, if it did; false when the error was not that. */
  const finish = async (on: StreamableHTTPClientTransport, error: unknown): Promise<boolean> => {
    const callback = provider.callback;
    if (!(error instanceof UnauthorizedError) || !callback) return false;
    provider.callback = null;
    await on.finishAuth(callback);
    return true;
  };
  const connectOptions = options.timeoutMs ? { timeout: options.timeoutMs } : undefined;
  let current = transport();
  try {
    await client.connect(current, connectOptions);
  } catch (error) {
    if (!(await finish(current, error))) throw error;
    current = transport();
    await client.connect(current, connectOptions);
  }
  const connected = current;
  return {
    client,
    provider,
    async authorized(request) {
      for (let approvals = 0; ; approvals++) {
        try {
          return await request();
        } catch (error) {
          if (approvals >= APPROVALS_PER_REQUEST || !(await finish(connected, error))) throw error;
        }
      }
    },
  };
}
