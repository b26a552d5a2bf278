/**
 * The admin session cookie's `Set-Cookie` lines. HttpOnly (scripts, including an injected one, cannot read it),
 * SameSite=Strict (no cross-site request carries it), Path=/ (the pages and the API share it). `Secure` only over
 * HTTPS: the usual LAN setup is plain HTTP, where a Secure cookie would never be sent back.
 */
import { ADMIN_COOKIE, SESSION_MAX_AGE_SECONDS } from './token';

export function sessionCookie(value: string, options: { secure: boolean }): string {
  return [
    `${ADMIN_COOKIE}=${value}`,
    'Path=/',
    `Max-Age=${SESSION_MAX_AGE_SECONDS}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}

export function clearedSessionCookie(): string {
  return `${ADMIN_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict`;
}

/** The session cookie's value from a `Cookie` header (the first one, as browsers send the most specific first). */
export function readSessionCookie(cookieHeader: string | null | undefined): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === ADMIN_COOKIE) return part.slice(eq + 1).trim();
  }
  return null;
}
