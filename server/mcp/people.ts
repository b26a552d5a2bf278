/**
 * MCP servers each person signs in to (OAuth): no connection of the app's own, one SDK client per person who
 * connected, made when a turn of theirs needs it and closed after `idleMs` without use, on disconnect or on an
 * admin's revoke (then the tokens are revoked at the authorization server too, oauth-revoke.ts). A server is
 * per-person when its entry says `auth.kind: oauth`, or when the manager found it answering 401 with OAuth metadata
 * (status `per-person`). The sign-in itself is oauth-provider.ts; the tokens are refreshed by the SDK when the server
 * refuses one, and here before one expires. A call refused for want of scope (a step-up) ends as "connect again to
 * grant <scopes>", and the person's next sign-in asks for them.
 */
import { auth, Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { AppError } from '../errors';
import { type CallQuestions, createCallQuestions, ELICITATION_CAPABILITY } from './call-questions';
import { cappedFetch, MAX_MESSAGE_BYTES } from './capped-transport';
import type { McpConfig, McpOAuthSettings } from './config';
import {
  CLIENT_INFO,
  errorText,
  type McpCallOptions,
  type McpCallResult,
  type McpManager,
  type McpTool,
  toTool,
} from './manager';
import {
  beginSignIn,
  finishSignIn,
  McpOAuthProvider,
  type McpOAuthTarget,
  rediscoverWhenRefused,
  type SignInEnd,
  type SignInStart,
  serverOfState,
} from './oauth-provider';
import { revokeTokens } from './oauth-revoke';
import type { McpConnectionInfo, McpConnectionStore } from './oauth-store';
import { nameTools } from './tool-names';

/** Refresh a token that expires sooner than this before using it. */
const REFRESH_AHEAD_MS = 60_000;

export interface PersonalServer {
  label: string;
  url: string;
  settings: McpOAuthSettings;
  /** false: found by its 401, not said in the config. */
  declared: boolean;
}

/** A person's view of the per-person servers, for one turn. */
export interface PersonalMcpTools {
  servers: Array<{
    label: string;
    /** Connected and its tools listed; else the person must connect it (tools: those known from others, maybe none). */
    connected: boolean;
    tools: McpTool[];
  }>;
  call(label: string, tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpCallResult>;
}

/**
 * A call that needs the person to connect (again) first: not a broken server. `scopes`: what the server asked for
 * beyond what the person granted (a step-up), which the next connect requests.
 */
export class McpNeedsConnectError extends Error {
  override name = 'McpNeedsConnectError';
  /**
   * By name, not `instanceof`: the app's bundles may each hold a copy of this module, so the class that threw may
   * not be the class the catching module imported (seen in a production build: the card ended as an error).
   */
  static is(error: unknown): error is McpNeedsConnectError {
    return error instanceof Error && error.name === 'McpNeedsConnectError';
  }
  constructor(
    readonly server: string,
    readonly scopes: string[] = [],
  ) {
    super(
      scopes.length > 0
        ? `the MCP server "${server}" needs the person to connect again to grant ${scopes.join(' ')}`
        : `the MCP server "${server}" needs the person to connect it`,
    );
  }
}

export interface PersonalMcp {
  servers(): PersonalServer[];
  begin(userId: string, label: string, options: { redirectUrl: string; returnTo?: string }): Promise<SignInStart>;
  /** The callback; the server is read from the state. */
  finish(userId: string, params: URLSearchParams): Promise<SignInEnd & { server?: string }>;
  forPerson(userId: string): Promise<PersonalMcpTools>;
  /** One person's connections (never a token), or everyone's for /admin (null). */
  connections(userId: string | null): Promise<McpConnectionInfo[]>;
  /** Forgets a person's connection (their disconnect, or an admin's revoke); false when there was none. */
  disconnect(userId: string, label: string): Promise<boolean>;
  close(): Promise<void>;
}

export interface PersonalMcpOptions {
  config: McpConfig;
  manager: Pick<McpManager, 'list'>;
  store: McpConnectionStore;
  env: Readonly<Record<string, string | undefined>>;
  /** Close a person's client after this long unused. */
  idleMs?: number;
  log?: (line: string) => void;
}

interface Live {
  client: Client;
  tools: McpTool[];
  timer: NodeJS.Timeout | null;
  /** The calls under way on this person's client and the questions its server asks during them. */
  questions: CallQuestions;
  /** Its transport's provider: after a step-up it holds the authorization URL with the scope asked for. */
  provider: McpOAuthProvider;
}

const key = (userId: string, label: string) => `${userId}\0${label}`;

export function createPersonalMcp(options: PersonalMcpOptions): PersonalMcp {
  const { config, store, env } = options;
  const idleMs = options.idleMs ?? 10 * 60_000;
  const log = options.log ?? ((line: string) => console.warn(line));
  const live = new Map<string, Promise<Live>>();
  /** The last tool list seen per server (from anyone's connection): what "connect to use" shows. */
  const known = new Map<string, McpTool[]>();

  const servers = (): PersonalServer[] => {
    const perPerson = new Set(
      options.manager
        .list()
        .filter((s) => s.status === 'per-person')
        .map((s) => s.label),
    );
    return Object.entries(config.servers)
      .filter(([label, entry]) => entry.url && !entry.disabled && (entry.auth || perPerson.has(label)))
      .map(([label, entry]) => ({
        label,
        url: entry.url!,
        settings: entry.auth ?? { kind: 'oauth' as const },
        declared: entry.auth !== undefined,
      }));
  };

  const target = (userId: string, label: string): McpOAuthTarget => {
    const server = servers().find((s) => s.label === label);
    if (!server) {
      throw new AppError('not_found:mcp_server', `"${label}" is not an MCP server that people connect to themselves`);
    }
    return { userId, server: label, url: server.url, settings: server.settings };
  };

  const drop = async (userId: string, label: string) => {
    const k = key(userId, label);
    const pending = live.get(k);
    live.delete(k);
    const l = await pending?.catch(() => null);
    if (l?.timer) clearTimeout(l.timer);
    await l?.client.close().catch(() => {});
  };

  const touch = (userId: string, label: string, l: Live) => {
    if (l.timer) clearTimeout(l.timer);
    l.timer = setTimeout(() => void drop(userId, label), idleMs);
    l.timer.unref();
  };

  /** Refreshes a token about to expire (the SDK's `auth()` takes the refresh branch when a refresh token is stored). */
  const freshen = async (t: McpOAuthTarget) => {
    const [row] = (await store.list(t.userId)).filter((c) => c.server === t.server);
    if (!row?.expiresAt || row.expiresAt.getTime() - Date.now() > REFRESH_AHEAD_MS) return;
    await auth(new McpOAuthProvider(store, t, { env }), { serverUrl: t.url }).catch(() => {});
  };

  /**
   * The scopes a step-up asked for that the person has not granted: the SDK's transport met 403
   * `insufficient_scope`, asked its `auth()` for the union of granted and challenged scopes, and that needs the
   * person's browser (the provider was handed the authorization URL). None when the refusal was not a step-up.
   */
  const moreScope = async (userId: string, label: string, provider: McpOAuthProvider): Promise<string[]> => {
    const tokens = (await store.read(userId, label))?.tokens;
    // No tokens left: the server refused them all (revoked), a plain "connect again".
    if (!tokens) return [];
    const asked = provider.authorizationUrl?.searchParams.get('scope')?.split(' ').filter(Boolean) ?? [];
    const granted = new Set(tokens.scope?.split(' ') ?? []);
    return asked.filter((s) => !granted.has(s) && s !== 'offline_access');
  };

  const open = (userId: string, label: string): Promise<Live> => {
    const k = key(userId, label);
    const existing = live.get(k);
    if (existing) return existing;
    const made = (async () => {
      const t = target(userId, label);
      await freshen(t);
      // Questions during a call reach the person as they do for the operator's servers (call-questions.ts).
      const questions = createCallQuestions();
      const client = new Client(CLIENT_INFO, {
        capabilities: ELICITATION_CAPABILITY,
        versionNegotiation: { mode: 'auto' },
      });
      client.setRequestHandler('elicitation/create', (request) => questions.handle(request.params));
      const provider = new McpOAuthProvider(store, t, { env });
      const transport = new StreamableHTTPClientTransport(new URL(t.url), {
        authProvider: provider,
        // One message at most MAX_MESSAGE_BYTES, as for the operator's servers (capped-transport.ts); a refused
        // token makes the SDK look for the authorization server again (it may have moved).
        fetch: rediscoverWhenRefused(provider, cappedFetch(MAX_MESSAGE_BYTES)),
      });
      try {
        await client.connect(transport, { timeout: config.connectTimeoutMs });
        const { tools } = await client.listTools(undefined, { timeout: config.connectTimeoutMs });
        const { named } = nameTools(
          label,
          tools.map((x) => x.name),
        );
        const byName = new Map(tools.map((x) => [x.name, x]));
        const listed = named.map((n) => toTool(byName.get(n.name)!, n.wireName));
        known.set(label, listed);
        const l: Live = { client, tools: listed, timer: null, questions, provider };
        client.onclose = () => {
          if (live.get(k) === made) live.delete(k);
        };
        return l;
      } catch (error) {
        await client.close().catch(() => {});
        throw error;
      }
    })();
    live.set(k, made);
    made.then(
      (l) => touch(userId, label, l),
      () => {
        if (live.get(k) === made) live.delete(k);
      },
    );
    return made;
  };

  return {
    servers,
    begin: (userId, label, { redirectUrl, returnTo }) =>
      beginSignIn(store, target(userId, label), { redirectUrl, env, ...(returnTo ? { returnTo } : {}) }),
    async finish(userId, params) {
      const label = serverOfState(params.get('state'));
      if (!label || !servers().some((s) => s.label === label)) {
        return { ok: false, reason: 'this sign-in names no MCP server configured here' };
      }
      const end = await finishSignIn(store, target(userId, label), params, { env });
      // A new sign-in replaces the client made with the old tokens.
      if (end.ok) await drop(userId, label);
      return { ...end, server: label };
    },
    async forPerson(userId) {
      const perPerson = servers();
      // No database read for a turn where no server signs people in.
      const rows = perPerson.length > 0 ? await store.list(userId) : [];
      const mine = new Map(rows.filter((c) => c.connected).map((c) => [c.server, c]));
      const list = await Promise.all(
        perPerson.map(async ({ label }) => {
          if (!mine.has(label)) return { label, connected: false, tools: known.get(label) ?? [] };
          try {
            const l = await open(userId, label);
            return { label, connected: true, tools: l.tools };
          } catch (error) {
            if (!(error instanceof UnauthorizedError)) {
              log(`[skillchat] MCP server "${label}" for a person: ${errorText(error)}`);
            }
            return { label, connected: false, tools: known.get(label) ?? [] };
          }
        }),
      );
      return {
        servers: list,
        async call(label, tool, args, { signal, timeoutMs, elicit }) {
          let l: Live;
          try {
            l = await open(userId, label);
          } catch (error) {
            if (error instanceof UnauthorizedError) throw new McpNeedsConnectError(label);
            throw error;
          }
          touch(userId, label, l);
          try {
            const run = l.questions.run(
              { timeoutMs, ...(signal ? { signal } : {}), ...(elicit ? { elicit } : {}) },
              (limits) => l.client.callTool({ name: tool, arguments: args }, limits),
            );
            return await run.result;
          } catch (error) {
            if (error instanceof UnauthorizedError) {
              await drop(userId, label);
              throw new McpNeedsConnectError(label, await moreScope(userId, label, l.provider));
            }
            throw error;
          }
        },
      };
    },
    async connections(userId) {
      const labels = new Set(servers().map((s) => s.label));
      return (await store.list(userId)).filter((c) => labels.has(c.server));
    },
    async disconnect(userId, label) {
      await drop(userId, label);
      // The authorization server forgets the grant too when it can (RFC 7009); ours goes either way.
      if (servers().some((s) => s.label === label)) {
        const t = target(userId, label);
        const outcome = await revokeTokens(new McpOAuthProvider(store, t, { env }), t.url);
        if (outcome.kind === 'failed') {
          log(
            `[skillchat] MCP server "${label}": revoking a person's tokens at the authorization server failed ` +
              `(${outcome.reason}); the connection is forgotten here all the same`,
          );
        }
      }
      return store.remove(userId, label);
    },
    async close() {
      const all = [...live.keys()];
      await Promise.all(
        all.map((k) => {
          const [userId, label] = k.split('\0') as [string, string];
          return drop(userId, label);
        }),
      );
    },
  };
}
