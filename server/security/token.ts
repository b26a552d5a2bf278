/**
 * The admin token and the session cookie derived from it. The cookie is not the token: it is an expiry time and an
 * HMAC of it keyed by the token, so a leaked cookie stops working when it expires (or the token changes) and never
 * reveals the token itself.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const ADMIN_COOKIE = 'skillchat_admin';
/** How long a login lasts. The cookie carries its own expiry, checked on every request. */
export const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;
/** Shorter tokens are refused: with 5 guesses a minute, a short token falls to a dictionary in days. */
export const MIN_TOKEN_LENGTH = 16;

const SESSION_VERSION = 'v1';

/** 32 random bytes, base64url: what `bin/start.ts` prints when no token is configured. */
export function generateAdminToken(): string {
  return randomBytes(32).toString('base64url');
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Constant-time comparison. Hashing first makes both sides the same length, so neither the content nor the length
 * of the expected token leaks through timing (`timingSafeEqual` itself throws on different lengths).
 */
export function tokensEqual(given: string, expected: string): boolean {
  return timingSafeEqual(sha256(given), sha256(expected));
}

function signature(token: string, expiresAt: number): string {
  return createHmac('sha256', token)
    .update(`skillchat-admin-session.${SESSION_VERSION}.${expiresAt}`)
    .digest('base64url');
}

/** A session cookie value valid until `now + SESSION_MAX_AGE_SECONDS`. */
export function createSessionValue(token: string, now: number = Date.now()): string {
  const expiresAt = now + SESSION_MAX_AGE_SECONDS * 1000;
  return `${SESSION_VERSION}.${expiresAt}.${signature(token, expiresAt)}`;
}

export type SessionCheck = 'valid' | 'expired' | 'invalid';

/**
 * Checks a session cookie value against `token`. `expired` is decided before any signature is computed, so an
 * expired cookie answers nothing about the token and need not count as a failed guess; `invalid` (malformed, a
 * far-future expiry, or a wrong signature) does. The expiry bound keeps a forged cookie from outliving the rule.
 */
export function checkSessionValue(value: string, token: string, now: number = Date.now()): SessionCheck {
  const parts = value.split('.');
  if (parts.length !== 3 || parts[0] !== SESSION_VERSION) return 'invalid';
  const expiresAt = Number(parts[1]);
  if (!Number.isSafeInteger(expiresAt) || expiresAt > now + SESSION_MAX_AGE_SECONDS * 1000) return 'invalid';
  if (expiresAt <= now) return 'expired';
  return tokensEqual(parts[2] ?? '', signature(token, expiresAt)) ? 'valid' : 'invalid';
}
