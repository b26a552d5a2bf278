/**
 * Accounts for the team server, by better-auth (v1) over the app's own drizzle database, passed in (never a
 * global): email + password (hashed by the library, scrypt), sessions in HttpOnly SameSite=Lax cookies, sign-out,
 * and the `admin` plugin for the roles `admin`/`member`, disabling (ban), deleting and password resets. Nobody
 * signs themselves up: admins (or `npm run user`) create accounts.
 *
 * Sign-in is throttled per account and per client by `login-throttle.ts` (counts in the same database, shared by
 * every instance), hooked around `/sign-in/email` so the HTTP handler and server calls go through the same limits.
 * better-auth's own IP rate limiter is on only when a trusted proxy header names the client: without one it would
 * fall back to one bucket shared by everyone, which a stranger could fill to keep every person out.
 */
import { type BetterAuthOptions, betterAuth } from 'better-auth';
import { drizzleAdapter } from 'better-auth/adapters/drizzle';
import { APIError, createAuthMiddleware, isAPIError } from 'better-auth/api';
import { admin } from 'better-auth/plugins';
import { adminAc, userAc } from 'better-auth/plugins/admin/access';
import type { Database } from '../db/client';
import * as sqliteAuth from '../db/schema-auth';
import * as pgAuth from '../db/schema-auth-pg';
import { clientIdentity, DEVICE_COOKIE, newDeviceId } from './client-key';
import { createLoginThrottle, DEFAULT_LOGIN_THROTTLE, type LoginThrottleOptions } from './login-throttle';

export type AuthDialect = 'sqlite' | 'pg';

export interface CreateAuthOptions {
  /** The app's database handle (either dialect), migrated: the account tables and the sign-in counts live there. */
  db: Database;
  /** At least 32 random characters, kept across restarts and shared by every instance (signs the cookies). */
  secret: string;
  /**
   * The app's public origin, e.g. `http://127.0.0.1:3000`, or better-auth's `{ allowedHosts, protocol, fallback }`
   * form: the origin of each request whose Host is allowed (a LAN server answers under several names).
   */
  baseURL: NonNullable<BetterAuthOptions['baseURL']>;
  /** Other origins the browser may send from (the configured allowed hosts). */
  trustedOrigins?: string[];
  /** Mark cookies `Secure` (the app is served over HTTPS). */
  secureCookies?: boolean;
  /** A header only a trusted reverse proxy sets, naming the client's IP; see `client-key.ts`. */
  trustedIpHeader?: string;
  /** The sign-in limits (default `DEFAULT_LOGIN_THROTTLE`). */
  throttle?: LoginThrottleOptions;
  /** Session lifetime in seconds (default 7 days). */
  sessionExpiresIn?: number;
  /** better-auth's log level (default `warn`: it logs each failed sign-in). */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
}

export const ROLES = { admin: adminAc, member: userAc };

const SIGN_IN_PATH = '/sign-in/email';

function authTables(dialect: AuthDialect) {
  const t = dialect === 'pg' ? pgAuth : sqliteAuth;
  // better-auth's model names -> our tables.
  return { user: t.users, session: t.sessions, account: t.accounts, verification: t.verifications };
}

function attemptOf(body: unknown, headers: Headers | undefined, trustedIpHeader: string | undefined) {
  const email = typeof body === 'object' && body !== null && 'email' in body ? body.email : undefined;
  return {
    account: typeof email === 'string' ? email.trim().toLowerCase() : '',
    ...clientIdentity(headers ?? new Headers(), { trustedIpHeader }),
  };
}

export function createAuth(options: CreateAuthOptions) {
  const rules = options.throttle ?? DEFAULT_LOGIN_THROTTLE;
  const throttle = createLoginThrottle(options.db, rules);
  const { trustedIpHeader } = options;
  const secure = options.secureCookies ?? false;
  const dialect: AuthDialect = options.db.dialect;

  return betterAuth({
    appName: 'skillchat',
    secret: options.secret,
    baseURL: options.baseURL,
    trustedOrigins: options.trustedOrigins,
    database: drizzleAdapter(options.db.native.db, { provider: dialect, schema: authTables(dialect) }),
    emailAndPassword: { enabled: true, disableSignUp: true, autoSignIn: false, minPasswordLength: 8 },
    session: { expiresIn: options.sessionExpiresIn ?? 7 * 24 * 3600 },
    plugins: [admin({ defaultRole: 'member', adminRoles: ['admin'], roles: ROLES })],
    rateLimit: {
      enabled: trustedIpHeader !== undefined,
      storage: 'memory',
      customRules: { [SIGN_IN_PATH]: { window: 60, max: 10 } },
    },
    advanced: {
      cookiePrefix: 'skillchat',
      useSecureCookies: secure,
      defaultCookieAttributes: { httpOnly: true, sameSite: 'lax', secure },
      ipAddress: trustedIpHeader ? { ipAddressHeaders: [trustedIpHeader] } : { disableIpTracking: true },
    },
    telemetry: { enabled: false },
    logger: { level: options.logLevel ?? 'warn' },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== SIGN_IN_PATH) return;
        const verdict = await throttle.check(attemptOf(ctx.body, ctx.headers, trustedIpHeader));
        if (!verdict.allowed) {
          throw new APIError(
            'TOO_MANY_REQUESTS',
            {
              message:
                verdict.scope === 'account'
                  ? 'Too many failed sign-ins for this account; try again later'
                  : 'Too many failed sign-ins from this client; try again later',
              code: `rate_limited:${verdict.scope}`,
            },
            { 'retry-after': String(verdict.retryAfter) },
          );
        }
      }),
      after: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== SIGN_IN_PATH) return;
        const attempt = attemptOf(ctx.body, ctx.headers, trustedIpHeader);
        const returned = ctx.context.returned;
        if (isAPIError(returned)) {
          // Only wrong credentials count; a disabled account or a throttled attempt is no guess.
          if (returned.statusCode === 401) await throttle.recordFailure(attempt);
          return;
        }
        // Remember this browser for the account: give it a device id if it has none, and record the success
        // under the id it will present next time.
        let device = attempt.device;
        if (!device) {
          device = newDeviceId();
          ctx.setCookie(DEVICE_COOKIE, device, {
            httpOnly: true,
            sameSite: 'lax',
            secure,
            path: '/',
            maxAge: Math.floor(rules.knownClientMs / 1000),
          });
        }
        await throttle.recordSuccess({ ...attempt, device });
      }),
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;
