/**
 * Who is "one client" for the sign-in limits (`login-throttle.ts`): its browser, by the device cookie set at its
 * first successful sign-in (what lets the throttle recognise the admin's own browser), and its address, when the app
 * can trust one: a header a trusted reverse proxy sets (configured by name), else the socket's address stamped by
 * this process's http server (`server/security/peer-address.ts`). `X-Forwarded-For` is whatever the client sends
 * and is never read. The cookie is the client's to change; the address is not, so counting both holds when a
 * script sends a new cookie with every attempt.
 */
import { randomBytes } from 'node:crypto';
import { normaliseAddress, PEER_ADDRESS_HEADER, peerAddressStamped } from '../security/peer-address';

export const DEVICE_COOKIE = 'skillchat.device';
const DEVICE_ID = /^[A-Za-z0-9_-]{22,64}$/;

export interface ClientKeyOptions {
  /** A header only the reverse proxy in front of the app sets (e.g. `x-real-ip`), or undefined. */
  trustedIpHeader?: string;
  /** Whether the socket address header was stamped by this process (default: as `peer-address.ts` says). */
  peerAddress?: boolean;
}

export interface ClientIdentity {
  device: string | null;
  address: string | null;
}

export function readDeviceId(cookieHeader: string | null): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== DEVICE_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return DEVICE_ID.test(value) ? value : null;
  }
  return null;
}

/** The client's address, or null when the app has none it can trust. */
export function clientAddress(headers: Headers, options: ClientKeyOptions = {}): string | null {
  if (options.trustedIpHeader) {
    const ip = headers.get(options.trustedIpHeader)?.trim();
    // A list means the proxy appended to a client-sent value: not one address we can vouch for.
    return ip && !ip.includes(',') ? normaliseAddress(ip) : null;
  }
  if (!(options.peerAddress ?? peerAddressStamped())) return null;
  const peer = headers.get(PEER_ADDRESS_HEADER)?.trim();
  return peer ? normaliseAddress(peer) : null;
}

export function clientIdentity(headers: Headers, options: ClientKeyOptions = {}): ClientIdentity {
  return { device: readDeviceId(headers.get('cookie')), address: clientAddress(headers, options) };
}

export function newDeviceId(): string {
  return randomBytes(18).toString('base64url');
}
