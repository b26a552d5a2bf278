/**
 * The first admin's one-time setup token. In exposed mode with no admin yet, the server prints a token on its
 * console; the setup page creates the first admin only for someone who types it. Only a SHA-256 hash is stored
 * (a leaked database row does not reveal it), it expires, and it works once: `verifySetupToken` says whether to
 * consume, and the store must consume atomically (`UPDATE ... WHERE consumed_at IS NULL`, one row changed) so
 * two instances or two tabs cannot both use it.
 *
 * Pure: no clock, no storage; the caller passes `now` and keeps the record (table `setup_tokens`).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export interface SetupTokenRecord {
  tokenHash: string;
  createdAt: Date;
  expiresAt: Date;
  consumedAt: Date | null;
}

export const SETUP_TOKEN_TTL_MS = 24 * 3600_000;
/** 32 random bytes, base64url: what a person copies from the console. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export function hashSetupToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A new token (show it once, never store it) and the record to store. */
export function createSetupToken(now: Date, ttlMs = SETUP_TOKEN_TTL_MS): { token: string; record: SetupTokenRecord } {
  const token = randomBytes(32).toString('base64url');
  return {
    token,
    record: {
      tokenHash: hashSetupToken(token),
      createdAt: now,
      expiresAt: new Date(now.getTime() + ttlMs),
      consumedAt: null,
    },
  };
}

export type SetupTokenCheck =
  | { ok: true }
  | { ok: false; code: 'malformed' | 'wrong' | 'expired' | 'consumed'; message: string };

export function verifySetupToken(given: string, record: SetupTokenRecord | null, now: Date): SetupTokenCheck {
  const token = given.trim();
  if (!TOKEN_SHAPE.test(token)) {
    return {
      ok: false,
      code: 'malformed',
      message: 'That is not a setup token: copy the whole token from the console',
    };
  }
  const expected = record ? Buffer.from(record.tokenHash, 'hex') : Buffer.alloc(32);
  const actual = Buffer.from(hashSetupToken(token), 'hex');
  // Constant time, and compared even without a record, so timing does not tell whether one exists.
  const matches = expected.length === actual.length && timingSafeEqual(expected, actual);
  if (!record || !matches) return { ok: false, code: 'wrong', message: 'Wrong setup token' };
  if (record.consumedAt) return { ok: false, code: 'consumed', message: 'This setup token was already used' };
  if (now.getTime() >= record.expiresAt.getTime()) {
    return { ok: false, code: 'expired', message: 'This setup token has expired: restart the server for a new one' };
  }
  return { ok: true };
}

/** The record after a successful use. */
export function consumeSetupToken(record: SetupTokenRecord, now: Date): SetupTokenRecord {
  return { ...record, consumedAt: now };
}
