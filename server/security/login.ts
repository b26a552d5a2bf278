/**
 * One admin login attempt: the token someone typed, checked under the failure limit. Framework-free so the rules
 * are unit-tested; the route handler only reads the body and writes the response.
 */
import type { AccessPolicy } from './policy';
import type { FailureLimiter } from './rate-limit';
import { createSessionValue, tokensEqual } from './token';

export type LoginResult =
  | { ok: true; session: string | null }
  | { ok: false; status: 400 | 401 | 403 | 429; code: string; reason: string; retryAfter?: number };

/** Longer input is not a token; refusing it early keeps hashing bounded. */
const MAX_TOKEN_INPUT = 1024;

export function attemptLogin(
  given: unknown,
  policy: AccessPolicy,
  limiter: FailureLimiter,
  now: number = Date.now(),
): LoginResult {
  const admin = policy.admin;
  // Nothing to log in to: the pages are open on a loopback-only server without a token.
  if (admin.mode === 'open') return { ok: true, session: null };
  if (admin.mode === 'locked') {
    return { ok: false, status: 403, code: 'forbidden:admin_locked', reason: `Admin is disabled: ${admin.reason}` };
  }
  // The limit is checked before anything about the input, so a locked-out guesser learns nothing at all.
  const retryAfter = limiter.retryAfter(now);
  if (retryAfter !== null) {
    return {
      ok: false,
      status: 429,
      code: 'rate_limited:admin',
      reason: `Too many failed admin logins; try again in ${retryAfter} s`,
      retryAfter,
    };
  }
  if (typeof given !== 'string' || given.trim() === '' || given.length > MAX_TOKEN_INPUT) {
    return { ok: false, status: 400, code: 'bad_request:admin_login', reason: 'Enter the admin token' };
  }
  if (!tokensEqual(given.trim(), admin.token)) {
    limiter.recordFailure(now);
    return { ok: false, status: 401, code: 'unauthorized:admin', reason: 'Wrong admin token' };
  }
  return { ok: true, session: createSessionValue(admin.token, now) };
}
