/**
 * Who is "one client" for the sign-in limits (`login-throttle.ts`). Route handlers cannot see the socket address
 * and `X-Forwarded-For` is whatever the client sends, so an IP is used only from a header a trusted reverse proxy
 * sets (configured by name). Otherwise the client is its device cookie: a random id set at the first successful
 * sign-in, which is what lets the throttle recognise the admin's own browser. No cookie: one shared bucket.
 */
import { randomBytes } from 'node:crypto';

export const DEVICE_COOKIE = 'skillchat.device';
const DEVICE_ID = /^[A-Za-z0-9_-]{22,64}$/;
export const ANONYMOUS_CLIENT = 'anonymous';

export interface ClientKeyOptions {
  /** A header only the reverse proxy in front of the app sets (e.g. `x-real-ip`), or undefined. */
  trustedIpHeader?: string;
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

export function clientKey(headers: Headers, options: ClientKeyOptions = {}): string {
  if (options.trustedIpHeader) {
    const ip = headers.get(options.trustedIpHeader)?.trim();
    if (ip && !ip.includes(',')) return `ip:${ip.toLowerCase()}`;
  }
  const device = readDeviceId(headers.get('cookie'));
  return device ? `device:${device}` : ANONYMOUS_CLIENT;
}

export function newDeviceId(): string {
  return randomBytes(18).toString('base64url');
}
