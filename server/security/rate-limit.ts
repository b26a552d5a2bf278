/**
 * Failed admin credentials (a wrong login token or a forged session cookie), counted globally.
 *
 * Why global: route handlers and the proxy cannot see the client's socket address, and `X-Forwarded-For` is
 * whatever the client says, so a per-client limit would be a per-header limit an attacker resets at will. A limit
 * per session cookie does not work either: a guesser simply sends none. Counting every failure together caps
 * guessing at `max` a window for everyone; the cost is that someone on the network can keep the operator from
 * logging in while they keep failing. An already valid session is checked like any other credential, so it is
 * refused too while the limit holds: otherwise the cookie check would be an unlimited guessing oracle.
 */
export interface FailureLimiterOptions {
  /** Failures allowed in a window. */
  max: number;
  windowMs: number;
}

export const DEFAULT_FAILURE_LIMIT: FailureLimiterOptions = { max: 5, windowMs: 60_000 };

export interface FailureLimiter {
  /** Null when a credential may be checked now; otherwise the seconds until one may (for `Retry-After`). */
  retryAfter(now?: number): number | null;
  recordFailure(now?: number): void;
  reset(): void;
}

/** A sliding log of failure times: exact, and small (at most `max` entries are kept). */
export function createFailureLimiter(options: FailureLimiterOptions = DEFAULT_FAILURE_LIMIT): FailureLimiter {
  let failures: number[] = [];
  const prune = (now: number) => {
    failures = failures.filter((t) => now - t < options.windowMs);
  };
  return {
    retryAfter(now = Date.now()) {
      prune(now);
      if (failures.length < options.max) return null;
      const oldest = failures[0] ?? now;
      return Math.max(1, Math.ceil((oldest + options.windowMs - now) / 1000));
    },
    recordFailure(now = Date.now()) {
      prune(now);
      failures.push(now);
      if (failures.length > options.max) failures = failures.slice(-options.max);
    },
    reset() {
      failures = [];
    },
  };
}

const g = globalThis as typeof globalThis & { __skillchatAdminLimiter?: FailureLimiter };

/**
 * The process's limiter, on `globalThis` so the proxy and the login route (separately bundled modules in one
 * process) count the same failures.
 */
export function getAdminFailureLimiter(): FailureLimiter {
  g.__skillchatAdminLimiter ??= createFailureLimiter();
  return g.__skillchatAdminLimiter;
}
