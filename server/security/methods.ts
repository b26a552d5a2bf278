/**
 * Requests that never reach `proxy.ts`, answered at Node's http server in the app's JSON error shape:
 * - TRACE: Next builds a fetch `Request` for it, fetch forbids it, and the throw became a bare 500 ("'TRACE' HTTP
 *   method is unsupported"). Now a 405.
 * - Requests Node's parser rejects (an unknown method such as TRACK, a malformed request line, headers too large):
 *   Node answered an empty 400 itself. Now a 400 (431 for oversized headers) with a code and a sentence.
 * (CONNECT goes to the server's `connect` event, which Next does not listen to: Node closes the socket.)
 * The same hook stamps each request with its socket's address (`peer-address.ts`).
 */

import http from 'node:http';
import type { Duplex } from 'node:stream';
import { stampPeerAddress } from './peer-address';

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

/** The JSON answer to a request Node's parser refused (what Node's default `clientError` handling does, with a body). */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const body = JSON.stringify(
    tooLarge
      ? { error: 'Request headers are too large', code: 'bad_request:headers_too_large' }
      : {
          error: 'Malformed HTTP request (the method, request line or headers could not be read)',
          code: 'bad_request:http',
        },
  );
  socket.end(
    `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
      'content-type: application/json\r\ncache-control: no-store\r\nconnection: close\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/**
 * Puts the guard in front of every http server's `request` listeners in this process (the one `next start` made
 * included: `emit` is looked up on the prototype), and answers parse errors nobody else handles. Idempotent.
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
      // Before any listener reads the headers: the client's address for the sign-in limits (peer-address.ts).
      stampPeerAddress(req);
    }
    // Only where nobody else handles parse errors: Node's default would answer them with an empty 400.
    if (event === 'clientError' && this.listenerCount('clientError') === 0) {
      answerClientError(args[0] as NodeJS.ErrnoException, args[1] as Duplex);
      return true;
    }
    return emit.apply(this, [event, ...args]);
  } as typeof proto.emit;
}
