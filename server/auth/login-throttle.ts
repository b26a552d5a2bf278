/**
 * Limits on failed sign-ins, per account and per client, built so a stranger cannot lock the team's admin out.
 *
 * - Per account: after `account.max` failures in the window, sign-in to that account is refused for clients that
 *   have never signed in to it: guessing one password is capped whatever the attacker rotates.
 * - Per client: after `client.max` failures in the window (any accounts), that client is refused: one machine
 *   cannot spray passwords over every account.
 * - Known clients: a client that signed in to an account successfully is exempt from that account's limit (only
 *   its own per-client limit applies). So a stranger failing on purpose against the admin's email locks out
 *   strangers, not the admin's own browser. Sessions are never touched: a signed-in admin stays signed in.
 *
 * What a "client" is comes from the caller (`server/auth/client-key.ts`): a trusted proxy's IP header when
 * configured, else the device cookie issued at a successful sign-in. A device cookie is the client's to choose, so
 * without a proxy the per-client limit only slows a careless client; the per-account limit is the real cap.
 *
 * State is in memory, per process: with several instances each keeps its own counts (docs/TEAM-SERVER.md).
 */
export interface ThrottleRule {
  /** Failures allowed within `windowMs`. */
  max: number;
  windowMs: number;
}

export interface LoginThrottleOptions {
  account: ThrottleRule;
  client: ThrottleRule;
  /** How long a successful client stays known for an account. */
  knownClientMs: number;
  /** Upper bound on remembered keys, so a flood of made-up emails or clients cannot grow memory without end. */
  maxKeys: number;
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottleOptions = {
  account: { max: 5, windowMs: 15 * 60_000 },
  client: { max: 20, windowMs: 15 * 60_000 },
  knownClientMs: 30 * 24 * 3600_000,
  maxKeys: 10_000,
};

export interface Attempt {
  /** The account's email, lowercased by the caller. */
  account: string;
  client: string;
}

export type ThrottleVerdict = { allowed: true } | { allowed: false; scope: 'account' | 'client'; retryAfter: number };

export interface LoginThrottle {
  check(attempt: Attempt, now?: number): ThrottleVerdict;
  recordFailure(attempt: Attempt, now?: number): void;
  recordSuccess(attempt: Attempt, now?: number): void;
}

export function createLoginThrottle(options: LoginThrottleOptions = DEFAULT_LOGIN_THROTTLE): LoginThrottle {
  const accountFailures = new Map<string, number[]>();
  const clientFailures = new Map<string, number[]>();
  /** `account\u0000client` -> last success time. */
  const known = new Map<string, number>();

  const recent = (map: Map<string, number[]>, key: string, windowMs: number, now: number): number[] => {
    const kept = (map.get(key) ?? []).filter((t) => now - t < windowMs);
    if (kept.length > 0) map.set(key, kept);
    else map.delete(key);
    return kept;
  };
  const retryAfter = (times: number[], rule: ThrottleRule, now: number) =>
    Math.max(1, Math.ceil(((times[times.length - rule.max] ?? now) + rule.windowMs - now) / 1000));
  const bounded = <V>(map: Map<string, V>) => {
    // Maps iterate in insertion order: dropping the first entries drops the oldest.
    while (map.size > options.maxKeys) {
      const oldest = map.keys().next().value;
      if (oldest === undefined) break;
      map.delete(oldest);
    }
  };
  const isKnown = ({ account, client }: Attempt, now: number) => {
    const at = known.get(`${account}\u0000${client}`);
    return at !== undefined && now - at < options.knownClientMs;
  };
  const push = (map: Map<string, number[]>, key: string, rule: ThrottleRule, now: number) => {
    const times = recent(map, key, rule.windowMs, now);
    times.push(now);
    map.delete(key);
    map.set(key, times.slice(-rule.max));
    bounded(map);
  };

  return {
    check(attempt, now = Date.now()) {
      const byClient = recent(clientFailures, attempt.client, options.client.windowMs, now);
      if (byClient.length >= options.client.max) {
        return { allowed: false, scope: 'client', retryAfter: retryAfter(byClient, options.client, now) };
      }
      if (!isKnown(attempt, now)) {
        const byAccount = recent(accountFailures, attempt.account, options.account.windowMs, now);
        if (byAccount.length >= options.account.max) {
          return { allowed: false, scope: 'account', retryAfter: retryAfter(byAccount, options.account, now) };
        }
      }
      return { allowed: true };
    },
    recordFailure(attempt, now = Date.now()) {
      push(clientFailures, attempt.client, options.client, now);
      push(accountFailures, attempt.account, options.account, now);
    },
    recordSuccess(attempt, now = Date.now()) {
      clientFailures.delete(attempt.client);
      const key = `${attempt.account}\u0000${attempt.client}`;
      known.delete(key);
      known.set(key, now);
      bounded(known);
    },
  };
}
