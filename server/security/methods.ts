/**
 * TRACE cannot reach `proxy.ts`: Next builds a fetch `Request` for it, fetch forbids it, and the
 * throw became a bare 500 ("'TRACE' HTTP method is unsupported"). Node's http server is the last place before that,
 * so the answer is given there: a 405 in the app's JSON error shape. (CONNECT goes to the server's `connect` event,
 * which Next does not listen to: Node closes the socket; TRACK is not in Node's parser: it answers 400 itself.)
 */
import http from 'node:http';

/** Methods fetch's `Request` refuses to construct that Node's http server hands to `request` listeners. */
export const FORBIDDEN_METHODS = new Set(['TRACE']);

const INSTALLED = Symbol.for('skillchat.methodGuard');

/** Answers a request with a forbidden method, or returns false to let the server handle it. */
export function refuseForbiddenMethod(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (!FORBIDDEN_METHODS.has(req.method ?? '')) return false;
  const body = JSON.stringify({
    error: `Method ${req.method} is not supported by this server`,
    code: 'method_not_allowed:request',
  });
  res.writeHead(405, {
    allow: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
  return true;
}

/**
 * Puts the guard in front of every http server's `request` listeners in this process (the one `next start` made
 * included: `emit` is looked up on the prototype). Idempotent.
 */
export function installMethodGuard(): void {
  const proto = http.Server.prototype as http.Server & { [INSTALLED]?: boolean };
  if (proto[INSTALLED]) return;
  proto[INSTALLED] = true;
  const emit = proto.emit as (this: http.Server, event: string, ...args: unknown[]) => boolean;
  proto.emit = function guardedEmit(this: http.Server, event: string, ...args: unknown[]): boolean {
    if (event === 'request') {
      const [req, res] = args as [http.IncomingMessage, http.ServerResponse];
      if (refuseForbiddenMethod(req, res)) return true;
    }
    return emit.apply(this, [event, ...args]);
  } as typeof proto.emit;
}
