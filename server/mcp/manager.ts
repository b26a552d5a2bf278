/**
 * The app's connections to the MCP servers the operator configured: one manager per process (server/app.ts owns
 * it). Each server is connected in the background, never while a turn waits: a turn takes the tools of the servers
 * connected at that moment (`connected()`), and /admin reads `list()` for why the others are missing. A server that
 * fails, exits or hangs is retried with a growing pause (1 s, 2 s, 4 s ... up to a minute). Tool lists follow
 * `notifications/tools/list_changed`. Call and failure counts per tool are kept in memory (since the process
 * started): they are for the operator's glance at /admin, not an audit log.
 *
 * Elicitation: the client declares form mode (the SDK fills the defaults an accept leaves out) and URL mode. A server's
 * `elicitation/create` during a call goes to that call's `elicit` (call-questions.ts; the chat asks the person, chat/elicitations.ts; a
 * headless caller answers with `acceptWithDefaults`, elicitation.ts); any other is declined.
 *
 * Client library: the official MCP TypeScript SDK, v2 split packages (`@modelcontextprotocol/client`), with
 * protocol version negotiation `auto` (a 2026 server is spoken to in its era, a 2025 one falls back to
 * `initialize`; on stdio that probe runs in a short-lived second process).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import {
  Client,
  type Tool as SdkTool,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { stripHiddenDeep, stripHiddenText } from '../skills/load/hidden-text';
import { type CallQuestions, createCallQuestions, ELICITATION_CAPABILITY, type McpElicit } from './call-questions';
import { CappedLineBuffer, cappedFetch, MAX_MESSAGE_BYTES } from './capped-transport';
import { type McpConfig, type McpServerEntry, resolveReferences } from './config';
import { nameTools } from './tool-names';

/**
 * `per-person`: each person signs in to this server themselves (its entry says `auth.kind: oauth`, or it answered
 * 401 with OAuth resource metadata), so there is no connection of the app's own: see people.ts.
 */
export type McpStatus = 'connecting' | 'connected' | 'failed' | 'disabled' | 'per-person';

export interface McpTool {
  /** The tool's own name on its server. */
  name: string;
  /** `mcp_<label>_<tool>`, what the model calls (tool-names.ts). */
  wireName: string;
  /** As the server wrote it (hidden characters removed, capped): untrusted text. */
  description: string;
  /** The tool's JSON Schema as the server sent it, with hidden characters removed from every string. */
  inputSchema: Record<string, unknown>;
  /** SHA-256 of name, description and schema: what an "Always allow" grant is tied to. */
  definitionHash: string;
}

export interface McpToolStats {
  calls: number;
  failures: number;
  lastError?: string;
  lastCallAt?: number;
}

export interface McpServerState {
  label: string;
  transport: 'stdio' | 'http';
  /** The program and its arguments, or the URL: what the operator wrote, never env values or headers. */
  target: string;
  status: McpStatus;
  /** Why it is not connected (failed), or what it waits for (connecting). */
  reason?: string;
  /** When the status last changed (ms since the epoch). */
  since: number;
  /** Failed attempts in a row. */
  failures: number;
  /** When the next attempt starts, while failed. */
  retryAt?: number;
  /** `name version` the server reports. */
  serverInfo?: string;
  tools: McpTool[];
  /** Tools left out of the tool set, with why (tool-names.ts). */
  skipped: { name: string; reason: string }[];
  stats: Record<string, McpToolStats>;
}

export type { McpElicit };

export interface McpCallOptions {
  signal?: AbortSignal;
  timeoutMs: number;
  /** Without it, an elicitation during the call is declined. */
  elicit?: McpElicit;
}

export type McpCallResult = Awaited<ReturnType<Client['callTool']>>;

export interface McpManager {
  /** Starts connecting every enabled server, in the background (idempotent). */
  start(): void;
  /** Every configured server, for /admin. */
  list(): McpServerState[];
  /** The servers connected right now, with their tools: what a turn offers. Never waits. */
  connected(): McpServerState[];
  /** Calls a tool on a connected server; the counts are kept. Rejects when the server is not connected. */
  call(label: string, tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<McpCallResult>;
  /** The SDK client of a connected server (for its served skills, mcp/skills.ts); null otherwise. */
  client(label: string): Client | null;
  /** Called after any server's status changes (connected, failed ...). Returns an unsubscribe function. */
  subscribe(listener: (label: string) => void): () => void;
  /** Closes every connection (stdio servers get their stdin closed, then are stopped) and stops retrying. */
  close(): Promise<void>;
}

export interface McpManagerOptions {
  /** Where `${env:NAME}` references are looked up, and PATH and HOME for stdio servers. */
  env: Readonly<Record<string, string | undefined>>;
  /** A stdio server's `cwd` is relative to this; it starts here when none is given. */
  appDir: string;
  /** Pause before the first retry, doubled each time up to `maxMs`. */
  backoff?: { firstMs: number; maxMs: number };
  log?: (line: string) => void;
}

export const CLIENT_INFO = { name: 'skillchat', version: '0.1.0' };
const MAX_DESCRIPTION = 2000;
const MAX_REASON = 400;
const STDERR_KEPT = 2000;

export class McpCallError extends Error {
  override name = 'McpCallError';
}

function describeTarget(entry: McpServerEntry): string {
  if (entry.url) {
    const url = new URL(entry.url);
    // Credentials in a URL are the operator's secret like a header: not shown.
    return `${url.protocol}//${url.host}${url.pathname}`;
  }
  return [entry.command!, ...(entry.args ?? [])].join(' ');
}

function hashDefinition(tool: SdkTool): string {
  return createHash('sha256')
    .update(JSON.stringify([tool.name, tool.description ?? '', tool.inputSchema]))
    .digest('hex');
}

export function toTool(tool: SdkTool, wireName: string): McpTool {
  return {
    name: tool.name,
    wireName,
    description: stripHiddenText(tool.description ?? tool.title ?? '').slice(0, MAX_DESCRIPTION),
    // As the server sent it (`$schema`, 2020-12 keywords), its strings cleaned: what a provider needs changed is
    // changed when the turn offers the tool (tools.ts `modelInputSchema`).
    inputSchema: stripHiddenDeep(tool.inputSchema as Record<string, unknown>),
    definitionHash: hashDefinition(tool),
  };
}

export function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim();
}

interface Connection {
  state: McpServerState;
  entry: McpServerEntry;
  client: Client | null;
  /** Bumped for every attempt: events of an older client are ignored. */
  generation: number;
  timer: NodeJS.Timeout | null;
  /** Aborts the attempt under way (`close()`): its initialize or tools/list request ends at once. */
  abort: AbortController | null;
  /** The client's transport, from the start of its attempt (the SDK's `client.transport` is set later). */
  transport: Transport | null;
  stderr: string;
  /** The server answered 401 with OAuth protected resource metadata (`WWW-Authenticate: ... resource_metadata=`). */
  asksOAuth: boolean;
  /** The calls under way on this connection and the questions their server asks during them (call-questions.ts). */
  questions: CallQuestions;
}

/** What a 401 of a server that wants each person to sign in carries (RFC 9728, section 5.1). */
export function asksForOAuth(response: Response): boolean {
  return (
    response.status === 401 && /\bresource_metadata="?[^"\s,]+/i.test(response.headers.get('www-authenticate') ?? '')
  );
}

export const PER_PERSON_REASON = 'each person connects it themselves (OAuth) on /settings';

/**
 * A stdio transport that remembers its server's process id (the SDK forgets it as soon as it starts closing) and
 * reads at most `MAX_MESSAGE_BYTES` of any one message (capped-transport.ts).
 */
class StdioTransport extends StdioClientTransport {
  startedPid: number | null = null;
  constructor(...args: ConstructorParameters<typeof StdioClientTransport>) {
    super(...args);
    (this as unknown as { _readBuffer: CappedLineBuffer })._readBuffer = new CappedLineBuffer(MAX_MESSAGE_BYTES);
  }
  override async start(): Promise<void> {
    await super.start();
    this.startedPid = this.pid;
  }
}

/** How long a closing server's process may take: the SDK's SIGTERM comes after 2 s, its SIGKILL 2 s later. */
const EXIT_WAIT_MS = 5000;

/** Resolves once process `pid` is gone (SIGKILL after EXIT_WAIT_MS), at once for none. */
async function exited(pid: number | null): Promise<void> {
  if (pid === null) return;
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const deadline = Date.now() + EXIT_WAIT_MS;
  while (alive()) {
    if (Date.now() > deadline) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {}
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function createMcpManager(config: McpConfig, options: McpManagerOptions): McpManager {
  const backoff = options.backoff ?? { firstMs: 1000, maxMs: 60_000 };
  const log = options.log ?? ((line: string) => console.warn(line));
  const connections = new Map<string, Connection>();
  const listeners = new Set<(label: string) => void>();
  let started = false;
  let closed = false;
  // Closing a stdio client ends the server's stdin, then SIGTERM after 2 s and SIGKILL 2 s later, on timers that
  // do not keep this process alive; and a client whose connect failed is closed by the SDK already, so a second
  // close returns at once. Each close waits for the server's process to be gone (`exited`), and `close()` waits for
  // every close under way: a server that ignores the end of its stdin (a hung one) must not outlive us.
  const closing = new Set<Promise<void>>();
  const closeClient = (client: Client, transport: Transport | null): Promise<void> => {
    const done = (async () => {
      await client.close().catch(() => {});
      // Also when the client never took the transport over (closed while it was still starting).
      await transport?.close().catch(() => {});
      if (transport instanceof StdioTransport) await exited(transport.startedPid);
    })();
    closing.add(done);
    return done.finally(() => closing.delete(done));
  };
  // Attempts under way: `close()` aborts them and waits for each to close what it started.
  const attempts = new Set<Promise<void>>();
  const attempt = (c: Connection) => {
    const running = connect(c);
    attempts.add(running);
    void running.finally(() => attempts.delete(running));
  };

  for (const [label, entry] of Object.entries(config.servers)) {
    connections.set(label, {
      entry,
      client: null,
      generation: 0,
      timer: null,
      abort: null,
      transport: null,
      stderr: '',
      asksOAuth: false,
      questions: createCallQuestions(),
      state: {
        label,
        transport: entry.url ? 'http' : 'stdio',
        target: describeTarget(entry),
        status: entry.disabled ? 'disabled' : entry.auth ? 'per-person' : 'connecting',
        reason: entry.disabled ? 'disabled in the config' : entry.auth ? PER_PERSON_REASON : 'not started yet',
        since: Date.now(),
        failures: 0,
        tools: [],
        skipped: [],
        stats: {},
      },
    });
  }

  const setStatus = (c: Connection, status: McpStatus, reason?: string) => {
    const { retryAt: _, reason: __, ...rest } = c.state;
    c.state = { ...rest, status, since: Date.now(), ...(reason ? { reason: reason.slice(0, MAX_REASON) } : {}) };
    for (const listener of listeners) {
      try {
        listener(c.state.label);
      } catch {
        // A listener's failure is its own.
      }
    }
  };

  const setTools = (c: Connection, tools: readonly SdkTool[]) => {
    const { named, skipped } = nameTools(
      c.state.label,
      tools.map((t) => t.name),
    );
    const byName = new Map(tools.map((t) => [t.name, t]));
    c.state = { ...c.state, tools: named.map((n) => toTool(byName.get(n.name)!, n.wireName)), skipped };
  };

  const transportFor = (c: Connection) => {
    const { entry } = c;
    if (entry.url) {
      const headers = resolveReferences(entry.headers, options.env);
      // Without a credential of the operator's, a 401 with resource metadata means the server signs people in.
      const operatorCredential = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
      const capped = cappedFetch(MAX_MESSAGE_BYTES);
      return new StreamableHTTPClientTransport(new URL(entry.url), {
        requestInit: { headers },
        fetch: async (input, init) => {
          const response = await capped(input, init);
          if (!operatorCredential && asksForOAuth(response)) c.asksOAuth = true;
          return response;
        },
      });
    }
    // Only what the operator gave, plus PATH and HOME: never the app's own secrets (API keys, DATABASE_URL).
    const base: Record<string, string> = {};
    for (const name of ['PATH', 'HOME'] as const) {
      const value = options.env[name];
      if (value !== undefined) base[name] = value;
    }
    const transport = new StdioTransport({
      command: entry.command!,
      args: entry.args ?? [],
      env: { ...base, ...resolveReferences(entry.env, options.env) },
      cwd: path.resolve(/*turbopackIgnore: true*/ options.appDir, entry.cwd ?? '.'),
      stderr: 'pipe',
    });
    c.stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      c.stderr = (c.stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
    });
    return transport;
  };

  /** The reason with the last line the server wrote to stderr, which usually says what went wrong. */
  const withStderr = (c: Connection, reason: string) => {
    const last = c.stderr.trim().split('\n').at(-1)?.trim();
    return last ? `${reason} (stderr: ${last})` : reason;
  };

  const scheduleRetry = (c: Connection) => {
    if (closed) return;
    const delay = Math.min(backoff.maxMs, backoff.firstMs * 2 ** Math.max(0, c.state.failures - 1));
    c.state = { ...c.state, retryAt: Date.now() + delay };
    c.timer = setTimeout(() => {
      c.timer = null;
      attempt(c);
    }, delay);
    c.timer.unref();
  };

  const fail = (c: Connection, reason: string) => {
    c.state = { ...c.state, failures: c.state.failures + 1, tools: [], skipped: [] };
    setStatus(c, 'failed', reason);
    log(`[skillchat] MCP server "${c.state.label}": ${c.state.reason}`);
    scheduleRetry(c);
  };

  async function connect(c: Connection): Promise<void> {
    if (closed) return;
    const generation = ++c.generation;
    const current = () => generation === c.generation && !closed;
    setStatus(c, 'connecting', c.state.failures > 0 ? `attempt ${c.state.failures + 1}` : 'starting');
    const client = new Client(CLIENT_INFO, {
      capabilities: ELICITATION_CAPABILITY,
      versionNegotiation: { mode: 'auto' },
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (!current() || c.state.status !== 'connected') return;
            if (error) log(`[skillchat] MCP server "${c.state.label}": tool list refresh failed: ${errorText(error)}`);
            else if (tools) setTools(c, tools);
          },
        },
      },
    });
    client.setRequestHandler('elicitation/create', (request) => c.questions.handle(request.params));
    c.client = client;
    // Out here: the catch closes what was started.
    let started: Transport | null = null;
    const abort = new AbortController();
    c.abort = abort;
    let deadline: NodeJS.Timeout | undefined;
    try {
      started = transportFor(c);
      c.transport = started;
      const limit = config.connectTimeoutMs;
      const timedOut = new Promise<never>((_, reject) => {
        deadline = setTimeout(
          () => reject(new Error(`no answer within ${limit / 1000} s (initialize or tools/list)`)),
          limit,
        );
      });
      const { tools } = await Promise.race([
        (async () => {
          await client.connect(started, { timeout: limit, signal: abort.signal });
          return client.listTools(undefined, { timeout: limit, signal: abort.signal });
        })(),
        timedOut,
      ]);
      if (!current()) {
        void closeClient(client, started);
        return;
      }
      const info = client.getServerVersion();
      c.state = { ...c.state, failures: 0, ...(info ? { serverInfo: `${info.name} ${info.version}` } : {}) };
      setTools(c, tools);
      setStatus(c, 'connected');
      // Set after connecting: a failed connect is handled above, a later close (exit, network) here.
      client.onclose = () => {
        if (!current() || c.state.status !== 'connected') return;
        c.client = null;
        fail(c, withStderr(c, 'the connection closed'));
      };
    } catch (error) {
      void closeClient(client, started);
      if (!current()) return;
      c.client = null;
      if (c.asksOAuth) {
        // Not a failure and not retried: the server is reached per person from now on.
        c.state = { ...c.state, failures: 0, tools: [], skipped: [] };
        setStatus(c, 'per-person', `${PER_PERSON_REASON} (it answered 401 with OAuth metadata)`);
        return;
      }
      fail(c, withStderr(c, errorText(error)));
    } finally {
      clearTimeout(deadline);
    }
  }

  const count = (c: Connection, tool: string, error?: string) => {
    const before = c.state.stats[tool] ?? { calls: 0, failures: 0 };
    const after: McpToolStats = {
      calls: before.calls + 1,
      failures: before.failures + (error === undefined ? 0 : 1),
      lastCallAt: Date.now(),
      ...(error !== undefined
        ? { lastError: error.slice(0, MAX_REASON) }
        : before.lastError
          ? { lastError: before.lastError }
          : {}),
    };
    c.state = { ...c.state, stats: { ...c.state.stats, [tool]: after } };
  };

  return {
    start() {
      if (started || closed) return;
      started = true;
      for (const c of connections.values()) if (!c.entry.disabled && !c.entry.auth) attempt(c);
    },
    list: () => [...connections.values()].map((c) => c.state),
    connected: () => [...connections.values()].filter((c) => c.state.status === 'connected').map((c) => c.state),
    async call(label, tool, args, { signal, timeoutMs, elicit }) {
      const c = connections.get(label);
      const client = c?.client;
      if (!c || !client || c.state.status !== 'connected') {
        const why = c ? ` (${c.state.status}${c.state.reason ? `: ${c.state.reason}` : ''})` : '';
        throw new McpCallError(stripHiddenText(`The MCP server "${label}" is not connected${why}`));
      }
      // The time limit is the server's: while the person answers a question of the call, its clock stops.
      const run = c.questions.run(
        { timeoutMs, ...(signal ? { signal } : {}), ...(elicit ? { elicit } : {}) },
        (limits) => client.callTool({ name: tool, arguments: args }, limits),
      );
      try {
        const result = await run.result;
        count(c, tool, result.isError ? 'the tool reported an error' : undefined);
        return result;
      } catch (error) {
        const message =
          (error as { code?: unknown }).code === 'REQUEST_TIMEOUT' || run.timedOut()
            ? `"${tool}" on the MCP server "${label}" did not answer within ${timeoutMs / 1000} s`
            : signal?.aborted
              ? `"${tool}" on the MCP server "${label}" was stopped with the answer`
              : `"${tool}" on the MCP server "${label}" failed: ${errorText(error)}`;
        // The tool's name and the error's text are the server's words.
        const clean = stripHiddenText(message);
        count(c, tool, clean);
        throw new McpCallError(clean);
      }
    },
    client(label) {
      const c = connections.get(label);
      return c?.state.status === 'connected' ? c.client : null;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      await Promise.all(
        [...connections.values()].map(async (c) => {
          if (c.timer) clearTimeout(c.timer);
          c.abort?.abort();
          c.generation++;
          const client = c.client;
          c.client = null;
          if (client) await closeClient(client, c.transport);
        }),
      );
      await Promise.all(attempts);
      await Promise.all(closing);
    },
  };
}
