/**
 * The TLS-terminating branch of the egress proxy: a CONNECT whose decision adds secret headers or keeps a package
 * index to GET/HEAD is answered here instead of being spliced through. The run's client speaks TLS to a leaf of the
 * skillchat CA (or plain HTTP, which undici tunnels through CONNECT for `http://` URLs); each request inside is
 * checked, given the headers, and sent on to the checked address, verified against the system roots and
 * `network.trust`. Node's own tls and http do the protocol work.
 */
import http from 'node:http';
import https from 'node:https';
import net, { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { type EgressCa, leafFor } from './ca';
import type { EgressRefusalCode, EgressTarget } from './types';

/** One request inside an intercepted tunnel (or the tunnel itself when its TLS name is refused: method CONNECT). */
export interface InterceptedRequest {
  method: string;
  path: string;
  allowed: boolean;
  code?: EgressRefusalCode;
  reason?: string;
  /** The status sent to the run. */
  status?: number;
  /** Body bytes from the upstream to the run. */
  bytesIn: number;
  /** Body bytes from the run to the upstream. */
  bytesOut: number;
}

export interface InterceptOptions {
  target: EgressTarget;
  /** The checked address of `target.host`: the only place a request goes. */
  address: { address: string; family: number };
  /** Set on every request, replacing a same-name header from the run. */
  headers: Record<string, string>;
  /** GET and HEAD only (a package index). */
  limited: boolean;
  ca: EgressCa;
  /** PEMs the upstream must chain to (ca.ts `upstreamTrust`); the same array each time lets its context be reused. */
  upstreamCa: string[];
  onRequest(e: InterceptedRequest): void;
}

/** Headers that belong to one connection, not to the request (RFC 9110 §7.6.1), plus the proxy's own. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const upstreamContexts = new WeakMap<string[], tls.SecureContext>();

/**
 * Takes over `client` (the socket of an answered CONNECT; `head` is what arrived after it) until it closes. The
 * first byte decides: 0x16 opens TLS with the leaf for `target.host`, anything else is plain HTTP.
 */
export function interceptTunnel(client: Duplex, head: Buffer, options: InterceptOptions): void {
  client.on('error', () => client.destroy());
  // Headers and body go out as separate writes; Nagle would hold the second for the run's delayed ACK (~40 ms).
  if (client instanceof net.Socket) client.setNoDelay(true);
  if (head.length > 0) client.unshift(head);
  firstByte(client)
    .then(async (byte) => {
      if (byte === undefined) return client.destroy();
      if (byte !== 0x16) return serveHttp(client, options, false);
      const leaf = await leafFor(options.ca, options.target.host);
      terminateTls(client, leaf.context, options);
    })
    .catch(() => client.destroy());
}

/** Resolves with the first byte the client sends, left in the stream for whoever reads next. */
function firstByte(client: Duplex): Promise<number | undefined> {
  return new Promise((resolve) => {
    const done = (byte: number | undefined) => {
      client.off('readable', onReadable).off('end', onEnd).off('close', onEnd);
      resolve(byte);
    };
    const onReadable = () => {
      const chunk: Buffer | null = client.read();
      if (chunk === null || chunk.length === 0) return;
      client.unshift(chunk);
      done(chunk[0]);
    };
    const onEnd = () => done(undefined);
    client.on('readable', onReadable).on('end', onEnd).on('close', onEnd);
  });
}

function terminateTls(client: Duplex, context: tls.SecureContext, options: InterceptOptions): void {
  const { host } = options.target;
  let refusedName: string | undefined;
  const socket = new tls.TLSSocket(client, {
    isServer: true,
    secureContext: context,
    ALPNProtocols: ['http/1.1'],
    // A name other than the CONNECT host would make this tunnel a front for some other site (domain fronting).
    // No name at all is what clients send for an IP literal, and the leaf is for `host` either way.
    SNICallback: (servername, cb) => {
      if (servername.toLowerCase() === host) return cb(null, context);
      refusedName = servername;
      cb(new Error('sni-mismatch'));
    },
  });
  socket.once('secure', () => serveHttp(socket, options, true));
  socket.once('error', () => {
    if (refusedName !== undefined) {
      const reason = `The TLS name "${refusedName.slice(0, 253)}" is not ${host}, the host this tunnel was opened for.`;
      options.onRequest({
        method: 'CONNECT',
        path: '',
        allowed: false,
        code: 'sni-mismatch',
        reason,
        bytesIn: 0,
        bytesOut: 0,
      });
    }
    socket.destroy();
    client.destroy();
  });
}

/** An HTTP/1.1 server on this one stream (keep-alive included); it and its upstream agent end with the tunnel. */
function serveHttp(stream: Duplex, options: InterceptOptions, secure: boolean): void {
  const agent = upstreamAgent(options, secure);
  const server = http.createServer((req, res) => forward(req, res, options, agent, secure));
  // An idle tunnel may stay open a while (the run's egress time limit is the proxy's); a client reconnects after.
  server.keepAliveTimeout = 30_000;
  stream.once('close', () => agent.destroy());
  server.emit('connection', stream);
}

/**
 * One agent per tunnel, so a run's keep-alive requests reuse one upstream connection. Pooling is safe here: every
 * socket of this agent goes to the one checked address (`host` is that address; `servername` names the host).
 */
function upstreamAgent(options: InterceptOptions, secure: boolean): http.Agent {
  if (!secure) return new http.Agent({ keepAlive: true, maxSockets: 4 });
  let context = upstreamContexts.get(options.upstreamCa);
  if (!context) {
    context = tls.createSecureContext({ ca: options.upstreamCa });
    upstreamContexts.set(options.upstreamCa, context);
  }
  return new https.Agent({ keepAlive: true, maxSockets: 4, secureContext: context });
}

function forward(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  options: InterceptOptions,
  agent: http.Agent,
  secure: boolean,
): void {
  const { target, address } = options;
  const method = req.method ?? 'GET';
  const path = originForm(req.url ?? '/', target);
  let bytesIn = 0;
  let bytesOut = 0;
  let reported = false;
  const report = (e: Partial<InterceptedRequest>) => {
    if (reported) return;
    reported = true;
    options.onRequest({
      method,
      path: path ?? req.url ?? '',
      allowed: true,
      status: res.headersSent ? res.statusCode : undefined,
      bytesIn,
      bytesOut,
      ...e,
    });
  };
  const refuse = (status: number, code: EgressRefusalCode, reason: string) => {
    report({ allowed: false, code, reason, status });
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-skillchat-egress': code });
    res.end(`${reason}\n`);
    req.resume();
  };

  if (path === null || !hostMatches(req.headers.host, target)) {
    refuse(403, 'host-mismatch', `This tunnel is for ${authority(target)}; a request for another host was refused.`);
    return;
  }
  if (options.limited && method !== 'GET' && method !== 'HEAD') {
    refuse(403, 'method', `${authority(target)} is a package index: only GET and HEAD reach it, not ${method}.`);
    return;
  }

  const upstream = (secure ? https : http).request({
    // The checked address itself, so no lookup can answer anything else; the name goes in SNI and is verified.
    host: address.address,
    port: target.port,
    servername: isIP(target.host) ? undefined : target.host,
    method,
    path,
    headers: upstreamHeaders(req.rawHeaders, options.headers),
    agent,
  });
  upstream.setNoDelay(true);
  upstream.on('response', (up) => {
    res.writeHead(up.statusCode ?? 502, up.statusMessage, withoutHopByHop(up.rawHeaders));
    up.on('data', (chunk: Buffer) => {
      bytesIn += chunk.length;
    });
    up.pipe(res);
    up.on('error', () => res.destroy());
  });
  upstream.on('error', (error) => {
    const reason = `${authority(target)} could not be reached: ${upstreamProblem(error)}.`;
    if (res.headersSent) {
      report({ allowed: true, code: 'upstream', reason });
      return res.destroy();
    }
    refuse(502, 'upstream', reason);
  });
  req.on('data', (chunk: Buffer) => {
    bytesOut += chunk.length;
  });
  req.pipe(upstream);
  res.on('finish', () => report({}));
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
    report({});
  });
}

/** The request target as a path; an absolute-form target must name this tunnel's host. Null when it does not. */
function originForm(url: string, target: EgressTarget): string | null {
  if (url.startsWith('/') || url === '*') return url;
  try {
    const parsed = new URL(url);
    return hostMatches(parsed.host, target) ? `${parsed.pathname}${parsed.search}` : null;
  } catch {
    return null;
  }
}

/** `Host` must be the CONNECT host, with the CONNECT port or none. */
function hostMatches(header: string | undefined, target: EgressTarget): boolean {
  if (!header) return false;
  const host = header.toLowerCase();
  const name = target.host.includes(':') ? `[${target.host}]` : target.host;
  return host === name || host === `${name}:${target.port}`;
}

function authority(target: EgressTarget): string {
  return `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
}

/** The run's headers without hop-by-hop ones (nor those its Connection names), then the secret headers on top. */
function upstreamHeaders(raw: string[], secrets: Record<string, string>): Record<string, string | string[]> {
  const replaced = new Set(Object.keys(secrets).map((name) => name.toLowerCase()));
  const out: Record<string, string | string[]> = {};
  /** The spelling of each name as the run first sent it; a repeated header stays repeated. */
  const spelling = new Map<string, string>();
  for (const [sent, value] of pairs(withoutHopByHop(raw))) {
    const lower = sent.toLowerCase();
    if (replaced.has(lower)) continue;
    const name = spelling.get(lower) ?? sent;
    spelling.set(lower, name);
    const prior = out[name];
    out[name] = prior === undefined ? value : [...(Array.isArray(prior) ? prior : [prior]), value];
  }
  for (const [name, value] of Object.entries(secrets)) out[name] = value;
  return out;
}

function withoutHopByHop(raw: string[]): string[] {
  const named = new Set(HOP_BY_HOP);
  for (const [name, value] of pairs(raw)) {
    if (name.toLowerCase() === 'connection')
      for (const token of value.split(',')) named.add(token.trim().toLowerCase());
  }
  return pairs(raw).flatMap(([name, value]) => (named.has(name.toLowerCase()) ? [] : [name, value]));
}

/** Node's raw header list (name, value, name, value...) as pairs. */
function pairs(raw: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
}

/** A sentence for the run; no addresses or paths of the server, just what went wrong. */
function upstreamProblem(error: NodeJS.ErrnoException): string {
  const code = error.code ?? '';
  if (code === 'ECONNREFUSED') return 'the connection was refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'the connection was reset';
  if (code === 'ETIMEDOUT') return 'the connection timed out';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return 'its certificate is for another name';
  if (/CERT|SIGNATURE|ISSUER|SELF_SIGNED/.test(code)) {
    return `its certificate is not trusted (${code}); an operator can add its CA to network.trust`;
  }
  if (code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS')) return `the TLS handshake failed (${code})`;
  return code ? `the connection failed (${code})` : 'the connection failed';
}
