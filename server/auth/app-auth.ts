/**
 * The app's one better-auth instance, configured from the access policy: the cookie secret from
 * `SKILLCHAT_AUTH_SECRET` or the `auth-secret` file beside the database, and a per-request base URL chosen among
 * the allowed hosts (better-auth's `{ allowedHosts }` form), so sign-in works under every name the server answers
 * to (localhost, the LAN address, a configured name) and its own Origin check accepts exactly those.
 */
import path from 'node:path';
import type { Database } from '../db';
import type { ExposurePolicy } from '../security/exposure';
import type { AllowedHost } from '../security/hosts';
import { type Auth, createAuth } from './auth';
import { loadAuthSecret } from './secret';

/** better-auth host patterns for our allowlist: a host without a port matches it with any port. */
export function authHostPatterns(hosts: readonly AllowedHost[]): string[] {
  const out = new Set<string>();
  for (const h of hosts) {
    if (h.port === null) {
      out.add(h.hostname);
      out.add(`${h.hostname}:*`);
    } else {
      out.add(`${h.hostname}:${h.port}`);
    }
  }
  return [...out];
}

export interface AppAuthInput {
  /** The app's database handle: better-auth's tables live in it, on either dialect. */
  db: Database;
  /** The SQLite file's folder keeps the generated cookie secret when `SKILLCHAT_AUTH_SECRET` is not set. */
  databasePath: string;
  policy: ExposurePolicy;
  env?: Readonly<Record<string, string | undefined>>;
}

export function createAppAuth({ db, databasePath, policy, env = process.env }: AppAuthInput): Auth {
  const secure = env.SKILLCHAT_SECURE_COOKIES === '1';
  const trustedIpHeader = env.SKILLCHAT_TRUSTED_IP_HEADER?.trim() || undefined;
  return createAuth({
    db,
    secret: loadAuthSecret(path.dirname(databasePath), env),
    baseURL: {
      allowedHosts: authHostPatterns(policy.allowedHosts),
      protocol: secure ? 'https' : 'http',
      // Server calls without a request (the CLI's operations, the setup token) need some URL.
      fallback: env.__NEXT_PRIVATE_ORIGIN || 'http://127.0.0.1',
    },
    secureCookies: secure,
    trustedIpHeader,
  });
}
