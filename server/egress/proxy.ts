/**
 * One run's way out: an HTTP proxy (proxy-chain) listening on a Unix socket of its own, which the sandbox gets
 * bound in. The socket identifies the run, so `decide` already knows the chat, the person and the skills. For every
 * CONNECT and every plain (absolute-form) HTTP request, in this order:
 *   canonical host (egress/address.ts) -> `decide` (the grant; before any DNS, so a refused name is never looked
 *   up) -> resolve and check every address against `network.private` -> connect to the checked address only
 *   (dialled by us for tunnels; for plain HTTP an agent per checked address whose every socket is dialled there,
 *   since a pooled socket would ignore a `lookup`)
 * or a refusal whose sentence reaches the client (`RequestError`), naming the address's class, never the address.
 * Bytes are metered on the client side of each connection (its socket counters, on every tunnelled chunk and every
 * 100 ms for the rest), against the run's caps; each CONNECT and each plain request becomes one EgressEvent. A
 * redirect is the client's next request, checked the same way: the proxy follows nothing.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import type { PrepareRequestFunctionOpts, PrepareRequestFunctionResult } from 'proxy-chain';
import { RequestError, Server } from 'proxy-chain';
import { summarizeEgress } from '../db';
import {
  canonicalHost,
  checkAddresses,
  describeClass,
  type NetworkAllowance,
  privateAllowance,
  type ResolvedAddress,
  type Resolver,
  systemResolver,
} from './address';
import { clientHelloServerName, isTlsHandshake } from './client-hello';
import type { NetworkConfig } from './config';
import type { EgressDecision, EgressEvent, EgressRefusalCode, EgressSummaryLine, EgressTarget } from './types';

export type AllowedDecision = Extract<EgressDecision, { allow: true }>;

/**
 * Opens a TCP connection to a checked address (tests pass a spy; the default is `net.connect`). `onread`, when
 * given, is passed to `net.connect`: the socket then reads into that buffer instead of emitting 'data'.
 */
export type Dial = (to: ResolvedAddress, port: number, onread?: net.OnReadOpts) => net.Socket;

export interface InterceptContext {
  target: EgressTarget;
  /** The checked address: connect there and nowhere else (`dial` does). */
  address: ResolvedAddress;
  decision: AllowedDecision;
  dial: () => net.Socket;
  /** One more request seen inside the tunnel (the connection's event counts them). */
  countRequest: () => void;
}

/**
 * The TLS-terminating branch, for a CONNECT whose decision has `headers` or `limited`. The proxy has already
 * answered `200 Connection Established`; `head` holds what the client sent after its CONNECT, if anything.
 */
export type Intercept = (client: net.Socket, head: Buffer, context: InterceptContext) => void;

export interface RunProxyOptions {
  socketPath: string;
  /** The socket's folder is created with this mode (0700). */
  folderMode?: number;
  /** The socket's mode: 0600, or 0660 with `socketGid` (the sandbox's group, when the server runs as root). */
  socketMode?: number;
  socketGid?: number;
  decide: (target: EgressTarget) => Promise<EgressDecision>;
  /** `network.private`: addresses and CIDR ranges that are not public but may be reached. */
  private: readonly string[];
  resolve?: Resolver;
  dial?: Dial;
  limits: NetworkConfig['limits'];
  intercept?: Intercept;
  onEvent: (event: EgressEvent) => void;
}

export interface RunProxy {
  readonly socketPath: string;
  /** The run's egress so far, summed per host:port. */
  summary(): EgressSummaryLine[];
  /** Cuts every tunnel, removes the socket, and answers the summary. */
  close(): Promise<EgressSummaryLine[]>;
}

const METER_MS = 100;
/** How long a connection beyond `maxConnections` may stay to be told so. */
const OVER_CAP_MS = 5_000;
const ESTABLISHED = 'HTTP/1.1 200 Connection Established\r\n\r\n';

/** The default `Dial`. */
export const connectTo: Dial = (to, port, onread) =>
  net.connect({ host: to.address, port, family: to.family, ...(onread ? { onread } : {}) });
/** What a tunnel reads from its upstream at once, into one buffer it keeps. */
const TUNNEL_BUFFER = 256 * 1024;

/** What is known of one CONNECT or plain request until its event is written. */
interface Draft {
  target: EgressTarget;
  skills: string[];
  startedAt: number;
  allowed: boolean;
  code?: EgressRefusalCode;
  reason?: string;
  requests: number;
  address?: ResolvedAddress;
  decision?: AllowedDecision;
  emitted?: boolean;
}

/** A client connection to the run's socket. */
interface Connection {
  socket: net.Socket;
  /** The socket's counters when its current request began (a kept-alive socket carries several). */
  mark: { read: number; written: number };
  overCap: boolean;
  draft?: Draft;
  upstream?: net.Socket;
  closed: Promise<void>;
}

export async function openRunProxy(options: RunProxyOptions): Promise<RunProxy> {
  const run = new EgressRun(options);
  await run.listen();
  return run;
}

class EgressRun implements RunProxy {
  readonly socketPath: string;
  private readonly server: RunServer;
  private readonly allowance: NetworkAllowance;
  private readonly resolve: Resolver;
  private readonly dial: Dial;
  private readonly connections = new Map<net.Socket, Connection>();
  private readonly drafts = new WeakMap<http.IncomingMessage, Draft>();
  private readonly agents = new Map<string, PinnedAgent>();
  private readonly events: EgressEvent[] = [];
  private closedBytes = { in: 0, out: 0 };
  private stopped: { code: 'byte-cap' | 'time-limit'; reason: string } | null = null;
  private readonly meter: NodeJS.Timeout;
  private readonly deadline: NodeJS.Timeout;

  constructor(private readonly options: RunProxyOptions) {
    this.socketPath = options.socketPath;
    this.allowance = privateAllowance(options.private);
    this.resolve = options.resolve ?? systemResolver;
    this.dial = options.dial ?? connectTo;
    this.server = new RunServer(this);
    this.meter = setInterval(() => this.checkBytes(), METER_MS).unref();
    const { maxSeconds } = options.limits;
    this.deadline = setTimeout(
      () => this.stop('time-limit', `This run's egress time (${maxSeconds} s) is over; its connections were cut`),
      maxSeconds * 1000,
    ).unref();
  }

  async listen(): Promise<void> {
    const { socketPath, folderMode = 0o700, socketGid } = this.options;
    const socketMode = this.options.socketMode ?? (socketGid === undefined ? 0o600 : 0o660);
    fs.mkdirSync(path.dirname(socketPath), { recursive: true, mode: folderMode });
    // A socket left by a server that died: nothing listens on it any more.
    if (fs.lstatSync(socketPath, { throwIfNoEntry: false })?.isSocket()) fs.rmSync(socketPath);
    const listener = this.server.server;
    await new Promise<void>((resolve, reject) => {
      listener.once('error', reject);
      listener.listen(socketPath, () => {
        listener.off('error', reject);
        resolve();
      });
    });
    fs.chmodSync(socketPath, socketMode);
    if (socketGid !== undefined) fs.chownSync(socketPath, -1, socketGid);
  }

  // --- connections -------------------------------------------------------------------------------------------

  track(socket: net.Socket): void {
    let closed!: () => void;
    const connection: Connection = {
      socket,
      mark: { read: 0, written: 0 },
      overCap: this.connections.size >= this.options.limits.maxConnections,
      closed: new Promise((resolve) => {
        closed = resolve;
      }),
    };
    this.connections.set(socket, connection);
    if (connection.overCap) socket.setTimeout(OVER_CAP_MS);
    socket.on('close', () => {
      this.connections.delete(socket);
      this.closedBytes.in += socket.bytesWritten;
      this.closedBytes.out += socket.bytesRead;
      connection.upstream?.destroy();
      if (connection.draft) this.emit(connection.draft, connection);
      this.checkBytes();
      closed();
    });
  }

  // --- the decision ------------------------------------------------------------------------------------------

  async prepare({
    request,
    hostname,
    port,
    isHttp,
  }: PrepareRequestFunctionOpts): Promise<PrepareRequestFunctionResult> {
    const connection = this.connections.get(request.socket);
    const startedAt = Date.now();
    const host = canonicalHost(isHttp ? hostname : (request.url ?? ''));
    const target = { host: host ?? hostname, port };
    const refuse = (code: EgressRefusalCode, reason: string, status: number, skills: string[] = []): never => {
      const draft: Draft = { target, skills, startedAt, allowed: false, code, reason, requests: 0 };
      this.emit(draft, null);
      throw new RequestError(reason, status, { 'x-skillchat-egress': code });
    };
    if (this.stopped) return refuse(this.stopped.code, this.stopped.reason, 403);
    if (!connection || connection.overCap) {
      const max = this.options.limits.maxConnections;
      return refuse('connection-cap', `This run already has ${max} connections open, its limit`, 429);
    }
    if (host === null || port < 1 || port > 65535) {
      return refuse('unresolved', `${hostname}:${port} is not a host and port a connection can go to`, 400);
    }

    const decision = await this.options.decide(target);
    const where = `${host}:${port}`;
    if (!decision.allow) return refuse(decision.code, decision.reason, 403, decision.skills);
    if (isHttp && decision.limited && request.method !== 'GET' && request.method !== 'HEAD') {
      return refuse('method', `${where} takes GET and HEAD only (it was ${request.method})`, 403, decision.skills);
    }
    const checked = await checkAddresses(host, this.allowance, this.resolve);
    if (!checked.ok && checked.code === 'unresolved') {
      const why = checked.errno ? ` (${checked.errno})` : '';
      return refuse('unresolved', `${host} does not resolve${why}`, 502, decision.skills);
    }
    if (!checked.ok) {
      const what = checked.literal ? `${host} is` : `${host} resolves to`;
      const reason = `${where} is refused: ${what} ${describeClass(checked.range)}, which runs may not reach (network.private lists the ones they may)`;
      return refuse('private-address', reason, 403, decision.skills);
    }

    const { address } = checked;
    const draft: Draft = { target, skills: decision.skills, startedAt, allowed: true, requests: 1, address, decision };
    this.drafts.set(request, draft);
    connection.draft = draft;
    if (!isHttp) return {};
    // forward() builds the upstream request from rawHeaders after this hook: the Host is the target's (a vhost on
    // a shared address cannot be named past the check), and the decision's headers replace the client's own.
    const authority = new URL(request.url ?? '').host;
    request.rawHeaders = withHeaders(request.rawHeaders, { Host: authority, ...decision.headers });
    return { httpAgent: this.agentFor(address, port) };
  }

  private agentFor(address: ResolvedAddress, port: number): PinnedAgent {
    const key = `${address.address}|${port}`;
    let agent = this.agents.get(key);
    if (!agent) {
      agent = new PinnedAgent(() => this.dial(address, port));
      this.agents.set(key, agent);
    }
    return agent;
  }

  // --- the two kinds of request ------------------------------------------------------------------------------

  /** A plain request's response is done (or failed): its event, with the bytes its connection carried for it. */
  requestDone(request: http.IncomingMessage): void {
    const draft = this.drafts.get(request);
    const connection = this.connections.get(request.socket);
    if (draft && !draft.emitted) this.emit(draft, connection ?? null);
    if (connection && connection.draft === draft) connection.draft = undefined;
  }

  /** A granted CONNECT: the TLS-terminating branch, or an opaque tunnel to the checked address. */
  tunnel(request: http.IncomingMessage, client: net.Socket, head: Buffer): void {
    const draft = this.drafts.get(request);
    const connection = this.connections.get(client);
    if (!draft?.address || !draft.decision || !connection) {
      if (draft) this.emit(draft, null); // the client left while its CONNECT was being decided
      client.destroy();
      return;
    }
    const { address, decision, target } = draft;
    if (decision.headers || decision.limited) {
      if (!this.options.intercept) {
        this.fail(draft, client, 'upstream', `${target.host}:${target.port} needs the TLS-terminating branch`);
        return;
      }
      draft.requests = 0;
      client.write(ESTABLISHED);
      this.options.intercept(client, head, {
        target,
        address,
        decision,
        dial: () => this.dial(address, target.port),
        countRequest: () => {
          draft.requests++;
        },
      });
      return;
    }

    // Downloads are most of the bytes: read them into one buffer per tunnel and read again once the client has
    // taken the chunk. A stream pipe allocates a buffer per 64 KB read, and collecting those was about as much
    // of the proxy's time as the copies themselves (bench/egress.ts).
    const upstream: net.Socket = this.dial(address, target.port, {
      buffer: Buffer.allocUnsafe(TUNNEL_BUFFER),
      callback: (length, buffer) => {
        client.write(buffer.subarray(0, length), () => upstream.resume());
        this.checkBytes();
        return false;
      },
    });
    connection.upstream = upstream;
    const onEarlyError = (error: NodeJS.ErrnoException) => {
      const why = error.code ? ` (${error.code})` : '';
      this.fail(draft, client, 'upstream', `${target.host}:${target.port} could not be reached${why}`);
    };
    upstream.once('error', onEarlyError);
    upstream.once('connect', () => {
      upstream.off('error', onEarlyError);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      upstream.on('end', () => client.end());
      upstream.on('close', () => client.end());
      client.on('data', () => this.checkBytes());
      client.write(ESTABLISHED);
      this.firstBytes(client, head, (first) => {
        const mismatch = this.sniMismatch(first, target.host);
        if (mismatch) {
          Object.assign(draft, { allowed: false, code: 'sni-mismatch', reason: mismatch, requests: 0 });
          client.destroy();
          return;
        }
        if (first.length > 0) upstream.write(first);
        client.pipe(upstream);
      });
    });
  }

  /**
   * Calls `done` with the client's first bytes: for TLS, the whole ClientHello (so its name can be read), else the
   * first chunk. Protocols where the server speaks first still work: upstream -> client is already flowing.
   */
  private firstBytes(client: net.Socket, head: Buffer, done: (first: Buffer) => void): void {
    let seen = head;
    const complete = () => !isTlsHandshake(seen) || clientHelloServerName(seen).state !== 'more';
    if (seen.length > 0 && complete()) {
      done(seen);
      return;
    }
    const onData = (chunk: Buffer) => {
      seen = seen.length === 0 ? chunk : Buffer.concat([seen, chunk]);
      if (!complete()) return;
      client.off('data', onData);
      client.pause();
      done(seen);
    };
    client.on('data', onData);
  }

  /** The reason to refuse a tunnel whose ClientHello names another host than its CONNECT, else null. */
  private sniMismatch(first: Buffer, host: string): string | null {
    if (!isTlsHandshake(first)) return null;
    const hello = clientHelloServerName(first);
    if (hello.state === 'invalid') return `The TLS handshake sent to ${host} could not be read`;
    if (hello.state === 'done' && hello.name !== null && hello.name !== host) {
      return `The TLS name ${hello.name} is not ${host}, the host this tunnel was opened to`;
    }
    return null;
  }

  /** A granted CONNECT that cannot go on: the client is told why (it has had no 200 yet). */
  private fail(draft: Draft, client: net.Socket, code: EgressRefusalCode, reason: string): void {
    Object.assign(draft, { allowed: false, code, reason, requests: 0 });
    this.server.sendSocketResponse(client, 502, { 'x-skillchat-egress': code }, reason);
  }

  // --- meter and record --------------------------------------------------------------------------------------

  private checkBytes(): void {
    if (this.stopped) return;
    let bytesIn = this.closedBytes.in;
    let bytesOut = this.closedBytes.out;
    for (const { socket } of this.connections.values()) {
      bytesIn += socket.bytesWritten;
      bytesOut += socket.bytesRead;
    }
    const { maxBytesIn, maxBytesOut } = this.options.limits;
    if (bytesIn > maxBytesIn) {
      this.stop('byte-cap', `This run received more than ${size(maxBytesIn)}, its cap; its connections were cut`);
    } else if (bytesOut > maxBytesOut) {
      this.stop('byte-cap', `This run sent more than ${size(maxBytesOut)}, its cap; its connections were cut`);
    }
  }

  /** The run's caps are reached: cut every connection, refuse every request from now on. */
  private stop(code: 'byte-cap' | 'time-limit', reason: string): void {
    if (this.stopped) return;
    this.stopped = { code, reason };
    for (const connection of this.connections.values()) {
      if (connection.draft && !connection.draft.emitted) Object.assign(connection.draft, { code, reason });
      connection.upstream?.destroy();
      connection.socket.destroy();
    }
  }

  private emit(draft: Draft, connection: Connection | null): void {
    if (draft.emitted) return;
    draft.emitted = true;
    let bytesIn = 0;
    let bytesOut = 0;
    if (connection) {
      const { socket, mark } = connection;
      bytesIn = socket.bytesWritten - mark.written;
      bytesOut = socket.bytesRead - mark.read;
      connection.mark = { read: socket.bytesRead, written: socket.bytesWritten };
    }
    const event: EgressEvent = {
      host: draft.target.host,
      port: draft.target.port,
      allowed: draft.allowed,
      skills: draft.skills,
      requests: draft.requests,
      bytesIn,
      bytesOut,
      startedAt: draft.startedAt,
      durationMs: Date.now() - draft.startedAt,
    };
    if (draft.code) event.code = draft.code;
    if (draft.reason) event.reason = draft.reason;
    this.events.push(event);
    this.options.onEvent(event);
  }

  summary(): EgressSummaryLine[] {
    return summaryLines(this.events);
  }

  async close(): Promise<EgressSummaryLine[]> {
    clearInterval(this.meter);
    clearTimeout(this.deadline);
    const closing = [...this.connections.values()].map((c) => c.closed);
    for (const connection of this.connections.values()) {
      connection.upstream?.destroy();
      connection.socket.destroy();
    }
    await Promise.all([this.server.close(true), ...closing]);
    for (const agent of this.agents.values()) agent.destroy();
    fs.rmSync(this.socketPath, { force: true });
    return this.summary();
  }
}

/** proxy-chain's Server, listening on a Unix socket, with our tunnel and our bookkeeping. */
class RunServer extends Server {
  constructor(private readonly run: EgressRun) {
    super({ prepareRequestFunction: (opts) => run.prepare(opts) });
  }

  /** proxy-chain drops sockets without a remote address (nodejs/node#23858), which is every Unix socket's case. */
  override onConnection(socket: net.Socket): void {
    this.registerConnection(socket);
    socket.on('error', () => {}); // handlers are attached asynchronously; an early reset must not throw
    this.run.track(socket);
  }

  override async onConnect(request: http.IncomingMessage, socket: net.Socket, head: Buffer): Promise<void> {
    try {
      await this.prepareRequestHandling(request);
    } catch (error) {
      this.failRequest(request, this.normalizeHandlerError(error as NodeJS.ErrnoException));
      return;
    }
    this.run.tunnel(request, socket, head);
  }

  override async onRequest(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    await super.onRequest(request, response);
    this.run.requestDone(request);
  }
}

/** Connections to one checked address, kept alive between a run's requests to it; never to any other address. */
class PinnedAgent extends http.Agent {
  constructor(private readonly connect: () => net.Socket) {
    super({ keepAlive: true });
  }

  override createConnection(): net.Socket {
    return this.connect();
  }
}

/** `raw` (name, value, name, value...) with `set` replacing every header of the same name, case-insensitively. */
/** The same sums as the stored record's (per host:port and outcome, a refusal with its first sentence). */
export function summaryLines(events: Iterable<EgressEvent>): EgressSummaryLine[] {
  return summarizeEgress(events).map(({ reason, ...line }) => (reason === null ? line : { ...line, reason }));
}

export function withHeaders(raw: readonly string[], set: Record<string, string>): string[] {
  const names = new Set(Object.keys(set).map((n) => n.toLowerCase()));
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!names.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  }
  for (const [name, value] of Object.entries(set)) out.push(name, value);
  return out;
}

function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MB` : `${Math.round(bytes / 1024)} KB`;
}
