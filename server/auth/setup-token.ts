/**
 * The first admin's one-time setup token. In exposed mode with no admin yet, the server prints a token on its
 * console; the setup page creates the first admin only for someone who types it.
 *
 * Pure: making a token and turning one into the key it is stored under. Only that key is stored (a SHA-256 of the
 * token, so a leaked row does not reveal it), in better-auth's verification table, with its expiry; using it
 * consumes the row atomically (`first-admin.ts`), so two tabs or two instances cannot both use it.
 */
import { createHash, randomBytes } from 'node:crypto';

export const SETUP_TOKEN_TTL_MS = 24 * 3600_000;
/** Prefix of the verification identifiers that are setup tokens. */
export const SETUP_IDENTIFIER_PREFIX = 'skillchat-setup:';
/** 32 random bytes, base64url: what a person copies from the console. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function createSetupToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The identifier a token is stored under, or null when the text cannot be a token (a typo, a partial copy). */
export function setupTokenIdentifier(given: string): string | null {
  const token = given.trim();
  if (!TOKEN_SHAPE.test(token)) return null;
  return `${SETUP_IDENTIFIER_PREFIX}${createHash('sha256').update(token, 'utf8').digest('hex')}`;
}
