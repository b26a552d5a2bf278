/**
 * Limits on failed sign-ins, built so a stranger cannot lock the team's admin out, kept in the database so every
 * instance shares the counts and a restart forgets neither a count nor a known browser.
 *
 * - Per account: after `account.max` failures in the window, sign-in to that account is refused for browsers that
 *   have never signed in to it: guessing one password is capped whatever the attacker rotates.
 * - Per client: after `client.max` failures in the window (any accounts), counted both per browser (its device
 *   cookie) and per address (the client's IP, when the app can know it: see `client-key.ts`), that client is
 *   refused. Counting the address too is what holds when a script sends a fresh cookie with every attempt.
 * - Known browsers: a browser that signed in to an account is exempt from that account's count and from its
 *   address's count for that account (only its own per-browser count applies). So a stranger failing on purpose
 *   against the admin's email, or from the admin's office network, locks out strangers, not the admin's browser.
 *   Sessions are never touched: a signed-in admin stays signed in.
 *
 * Checking and recording are separate statements, not one transaction: attempts racing on several instances can
 * each pass a check before the others are recorded, so the limit can be passed by the number of attempts in flight.
 */
import { and, count, desc, eq, gt, lt } from 'drizzle-orm';
import { type Database, withDb } from '../db/client';
import type { LoginFailureScope } from '../db/schema';

export interface ThrottleRule {
  /** Failures allowed within `windowMs`. */
  max: number;
  windowMs: number;
}

export interface LoginThrottleOptions {
  account: ThrottleRule;
  client: ThrottleRule;
  /** How long a successful browser stays known for an account. */
  knownClientMs: number;
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottleOptions = {
  account: { max: 5, windowMs: 15 * 60_000 },
  client: { max: 20, windowMs: 15 * 60_000 },
  knownClientMs: 30 * 24 * 3600_000,
};

export interface Attempt {
  /** The account's email, lowercased by the caller. */
  account: string;
  /** The browser's device id (its cookie), or null when it has none. */
  device: string | null;
  /** The client's address, when the app can know it (`client-key.ts`), else null. */
  address: string | null;
}

export type ThrottleVerdict = { allowed: true } | { allowed: false; scope: 'account' | 'client'; retryAfter: number };

export interface LoginThrottle {
  check(attempt: Attempt, now?: number): Promise<ThrottleVerdict>;
  recordFailure(attempt: Attempt, now?: number): Promise<void>;
  /** `device` is the id the browser will present next time (a new one when it had none). */
  recordSuccess(attempt: Attempt & { device: string }, now?: number): Promise<void>;
}

export function createLoginThrottle(
  d: Database,
  options: LoginThrottleOptions = DEFAULT_LOGIN_THROTTLE,
): LoginThrottle {
  const { loginFailures, knownDevices } = d.t;
  const keepMs = Math.max(options.account.windowMs, options.client.windowMs);

  /** Seconds until the window passes the oldest counted failure, or null while under the limit. */
  const blockedFor = async (scope: LoginFailureScope, key: string, rule: ThrottleRule, now: number) => {
    const recent = await withDb(d, (db) =>
      db
        .select({ at: loginFailures.at })
        .from(loginFailures)
        .where(
          and(
            eq(loginFailures.scope, scope),
            eq(loginFailures.key, key),
            gt(loginFailures.at, new Date(now - rule.windowMs)),
          ),
        )
        .orderBy(desc(loginFailures.at))
        .limit(rule.max),
    );
    if (recent.length < rule.max) return null;
    const oldest = recent[recent.length - 1]?.at.getTime() ?? now;
    return Math.max(1, Math.ceil((oldest + rule.windowMs - now) / 1000));
  };

  const isKnown = async ({ account, device }: Attempt, now: number) => {
    if (!device) return false;
    const [row] = await withDb(d, (db) =>
      db
        .select({ n: count() })
        .from(knownDevices)
        .where(
          and(
            eq(knownDevices.account, account),
            eq(knownDevices.device, device),
            gt(knownDevices.lastSuccessAt, new Date(now - options.knownClientMs)),
          ),
        ),
    );
    return Number(row?.n ?? 0) > 0;
  };

  return {
    async check(attempt, now = Date.now()) {
      // A browser without a device cookie has no count of its own (one shared count would let a stranger hold back
      // every new browser); its address's count stands for it.
      const byDevice = attempt.device && (await blockedFor('device', attempt.device, options.client, now));
      if (byDevice) return { allowed: false, scope: 'client', retryAfter: byDevice };
      const known = await isKnown(attempt, now);
      if (attempt.address !== null && !known) {
        const byAddress = await blockedFor('address', attempt.address, options.client, now);
        if (byAddress !== null) return { allowed: false, scope: 'client', retryAfter: byAddress };
      }
      if (!known) {
        const byAccount = await blockedFor('account', attempt.account, options.account, now);
        if (byAccount !== null) return { allowed: false, scope: 'account', retryAfter: byAccount };
      }
      return { allowed: true };
    },

    async recordFailure(attempt, now = Date.now()) {
      const at = new Date(now);
      const rows: { scope: LoginFailureScope; key: string; at: Date }[] = [
        { scope: 'account', key: attempt.account, at },
      ];
      if (attempt.device !== null) rows.push({ scope: 'device', key: attempt.device, at });
      if (attempt.address !== null) rows.push({ scope: 'address', key: attempt.address, at });
      await withDb(d, async (db) => {
        await db.insert(loginFailures).values(rows);
        // Older than every window: counts nothing any more.
        await db.delete(loginFailures).where(lt(loginFailures.at, new Date(now - keepMs)));
      });
    },

    async recordSuccess(attempt, now = Date.now()) {
      const at = new Date(now);
      await withDb(d, async (db) => {
        // This browser's own slips are forgiven; the account's and the address's counts stay (others' failures).
        await db
          .delete(loginFailures)
          .where(and(eq(loginFailures.scope, 'device'), eq(loginFailures.key, attempt.device)));
        await db
          .insert(knownDevices)
          .values({ account: attempt.account, device: attempt.device, lastSuccessAt: at })
          .onConflictDoUpdate({ target: [knownDevices.account, knownDevices.device], set: { lastSuccessAt: at } });
        await db.delete(knownDevices).where(lt(knownDevices.lastSuccessAt, new Date(now - options.knownClientMs)));
      });
    },
  };
}
