/**
 * The access decision for one request, shared by the proxy (every route) and the admin pages and route handlers
 * (a second check, so a path the proxy's matcher or normalisation missed still cannot reach admin data).
 *
 * Order: the raw `Host` against the allowlist (DNS rebinding), then `Origin` on state-changing methods (cross-site
 * writes), then the admin session for admin paths. Forwarding headers (`X-Forwarded-For`, `X-Forwarded-Host`,
 * `Forwarded`) are not inputs: they are whatever the client sends.
 */
import { formatHost, isHostAllowed, isOriginAllowed, parseHostHeader, parseOrigin } from './hosts';
import type { AccessPolicy } from './policy';
import type { FailureLimiter } from './rate-limit';
import { checkSessionValue } from './token';

export interface RequestFacts {
  method: string;
  /** The URL path as received. */
  pathname: string;
  /** The raw `Host` header. */
  host: string | null;
  /** The raw `Origin` header. */
  origin: string | null;
  /** The admin session cookie's value. */
  session: string | null;
}

export type Decision =
  | { action: 'allow' }
  /** An admin page without a session: send the browser to the login form. */
  | { action: 'login'; next: string; clearSession: boolean }
  | {
      action: 'deny';
      status: 400 | 401 | 403 | 421 | 429;
      /** `kind:surface`, as in the app's JSON errors. */
      code: string;
      reason: string;
      format: 'text' | 'json';
      retryAfter?: number;
      /** The request carried a session cookie that failed: clear it so the browser stops presenting it. */
      clearSession?: boolean;
    };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Admin paths anyone may reach (after the Host and Origin checks): the way in and out. */
const PUBLIC_ADMIN_PATHS = new Set(['/admin/login', '/api/admin/login', '/api/admin/logout']);

/**
 * A path as the router may understand it: percent-decoded, repeated slashes collapsed, lowercase, without a
 * trailing slash. Only used to decide whether a path is an admin path, so erring towards "admin" is safe.
 */
export function normalisePath(pathname: string): string {
  let decoded = pathname;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    // Malformed escapes: the router refuses them too; classify the raw form.
  }
  const collapsed = decoded
    .replace(/\\/g, '/')
    .replace(/\/{2,}/g, '/')
    .toLowerCase();
  return collapsed.length > 1 && collapsed.endsWith('/') ? collapsed.slice(0, -1) : collapsed;
}

export function isAdminPath(pathname: string): boolean {
  const p = normalisePath(pathname);
  return p === '/admin' || p.startsWith('/admin/') || p === '/api/admin' || p.startsWith('/api/admin/');
}

function isApiPath(pathname: string): boolean {
  const p = normalisePath(pathname);
  return p === '/api' || p.startsWith('/api/');
}

export interface CheckOptions {
  limiter: FailureLimiter;
  now?: number;
}

export function checkRequest(facts: RequestFacts, policy: AccessPolicy, options: CheckOptions): Decision {
  const now = options.now ?? Date.now();
  const format = isApiPath(facts.pathname) ? 'json' : 'text';

  const host = parseHostHeader(facts.host);
  if (!host) {
    return {
      action: 'deny',
      status: 400,
      code: 'bad_request:host',
      reason: 'Missing or malformed Host header',
      format: 'text',
    };
  }
  if (!isHostAllowed(host, policy.allowedHosts)) {
    return {
      action: 'deny',
      status: 421,
      code: 'misdirected:host',
      reason: `Host "${formatHost(host)}" is not served here. Open the app by an allowed name (localhost), or add this name to allowedHosts (SKILLCHAT_ALLOWED_HOSTS).`,
      format: 'text',
    };
  }

  if (!SAFE_METHODS.has(facts.method.toUpperCase())) {
    const origin = parseOrigin(facts.origin);
    if (!origin) {
      return {
        action: 'deny',
        status: 403,
        code: 'forbidden:origin',
        reason: facts.origin
          ? 'Cross-site request refused: the Origin header is not a valid origin'
          : 'Request refused: state-changing requests must carry an Origin header (send it from the app itself)',
        format,
      };
    }
    if (!isOriginAllowed(origin, host, policy.configuredHosts)) {
      return {
        action: 'deny',
        status: 403,
        code: 'forbidden:origin',
        reason: `Cross-site request refused: Origin ${origin.scheme}://${formatHost({ hostname: origin.hostname, port: origin.port })} is not this site`,
        format,
      };
    }
  }

  if (!isAdminPath(facts.pathname) || PUBLIC_ADMIN_PATHS.has(normalisePath(facts.pathname))) return { action: 'allow' };

  const admin = policy.admin;
  if (admin.mode === 'open') return { action: 'allow' };
  if (admin.mode === 'locked') {
    if (format === 'text') return { action: 'login', next: facts.pathname, clearSession: false };
    return {
      action: 'deny',
      status: 403,
      code: 'forbidden:admin_locked',
      reason: `Admin is disabled: ${admin.reason}`,
      format,
    };
  }

  const session = facts.session ?? '';
  if (session === '') {
    if (format === 'text') return { action: 'login', next: facts.pathname, clearSession: false };
    return {
      action: 'deny',
      status: 401,
      code: 'unauthorized:admin',
      reason: 'Admin login required (POST /api/admin/login)',
      format,
    };
  }
  // A presented session is a credential: it is checked only while the failure limit allows, or the cookie would be
  // an unlimited way to guess the token.
  const retryAfter = options.limiter.retryAfter(now);
  if (retryAfter !== null) {
    return {
      action: 'deny',
      status: 429,
      code: 'rate_limited:admin',
      reason: `Too many failed admin logins; try again in ${retryAfter} s`,
      format,
      retryAfter,
    };
  }
  const result = checkSessionValue(session, admin.token, now);
  if (result === 'valid') return { action: 'allow' };
  if (result === 'invalid') options.limiter.recordFailure(now);
  if (format === 'text') return { action: 'login', next: facts.pathname, clearSession: true };
  return {
    action: 'deny',
    status: 401,
    code: 'unauthorized:admin',
    reason: result === 'expired' ? 'Admin session expired; log in again' : 'Admin session not valid; log in again',
    format,
    clearSession: true,
  };
}

/** A same-site path to return to after login: only admin pages, never another origin (`//evil`, `/\\evil`). */
export function safeNextPath(next: string | null | undefined): string {
  if (!next?.startsWith('/admin') || next.startsWith('//') || /[\\\s]/.test(next)) return '/admin';
  const p = normalisePath(next);
  if (p === '/admin/login' || !(p === '/admin' || p.startsWith('/admin/'))) return '/admin';
  return next;
}
