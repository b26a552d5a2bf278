/**
 * The socket's address, handed to route handlers. Next route handlers cannot see the socket, and the
 * `X-Forwarded-For` Next fills in keeps whatever the client sent. So the http server's `request` event (hooked in
 * `methods.ts`, installed from instrumentation.ts) writes the socket's address into a header of its own, overwriting
 * any value the client sent; the sign-in limits count failures per address with it (`server/auth/client-key.ts`).
 *
 * Behind a reverse proxy this is the proxy's address, shared by every client: configure the proxy's client-IP
 * header (`SKILLCHAT_TRUSTED_IP_HEADER`) there instead.
 */
import type http from 'node:http';
import { processWide } from '../process-wide';

export const PEER_ADDRESS_HEADER = 'x-skillchat-peer-address';

// Set by the http server's hook, read by the sign-in routes: other bundles than the one that installed the hook.
const stamp = processWide('peer-address', () => ({ stamped: false }));

/** `::ffff:192.0.2.1` (an IPv4 client on a dual-stack socket) is 192.0.2.1. */
export function normaliseAddress(address: string): string {
  const lower = address.trim().toLowerCase();
  return lower.startsWith('::ffff:') && lower.includes('.') ? lower.slice(7) : lower;
}

/** Overwrites the header with the socket's address (or removes a client-sent one when the socket has none). */
export function stampPeerAddress(req: http.IncomingMessage): void {
  const address = req.socket?.remoteAddress;
  if (address) req.headers[PEER_ADDRESS_HEADER] = normaliseAddress(address);
  else delete req.headers[PEER_ADDRESS_HEADER];
  stamp.stamped = true;
}

/** Whether this process stamps the header, so a value in it came from the socket and not from the client. */
export function peerAddressStamped(): boolean {
  return stamp.stamped;
}
