/**
 * The access decision for one request, made by the proxy for every route before anything renders.
 *
 * Order: the raw `Host` against the allowlist (DNS rebinding), then `Origin` on state-changing methods (cross-site
 * writes), then, on an exposed server, that the request carries a session cookie at all (cheap, no database): an
 * API without one gets 401 JSON, a page a redirect to /login. Whether the session is valid, and the person an admin,
 * is checked by the route handlers and pages themselves (`app/_lib/current-user.ts`). Forwarding headers
 * (`X-Forwarded-For`, `X-Forwarded-Host`, `Forwarded`) are not inputs: they are whatever the client sends.
 */

import type { ExposurePolicy } from './exposure';
import { formatHost, isHostAllowed, isOriginAllowed, parseHostHeader, parseOrigin } from './hosts';

export interface RequestFacts {
  method: string;
  /** The URL path as received. */
  pathname: string;
  /** The raw `Host` header. */
  host: string | null;
  /** The raw `Origin` header. */
  origin: string | null;
  /** The raw `Cookie` header (only whether it holds a session cookie matters here). */
  cookie: string | null;
}

export type Decision =
  | { action: 'allow' }
  /** A page without a session on an exposed server: send the browser to the sign-in form. */
  | { action: 'login'; next: string }
  | {
      action: 'deny';
      status: 400 | 401 | 403 | 421;
      /** `kind:surface`, as in the app's JSON errors. */
      code: string;
      reason: string;
      format: 'text' | 'json';
    };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** better-auth's session cookie (`cookiePrefix` in `server/auth/auth.ts`), and its name under `Secure` cookies. */
export const SESSION_COOKIES = ['skillchat.session_token', '__Secure-skillchat.session_token'];

/** Paths anyone may reach on an exposed server (after the Host and Origin checks): the ways in, and health. */
const PUBLIC_PATHS = new Set(['/login', '/setup', '/api/setup', '/api/status', '/favicon.ico']);

/**
 * A path as the router may understand it: percent-decoded, repeated slashes collapsed, lowercase, without a
 * trailing slash. Used to decide whether a path is public; a spelling the router would not serve as a public page
 * at worst needs a session it did not need.
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

/**
 * The skill server's routes: programs reach them with a personal access token (`Authorization: Bearer`),
 * not a session cookie, so the proxy lets them through to their own check (`server/skill-server/caller.ts`), which
 * answers 401 JSON without a credential on an exposed server.
 */
export function isSkillServerPath(pathname: string): boolean {
  const p = normalisePath(pathname);
  return p === '/mcp' || p.startsWith('/.well-known/agent-skills/');
}

/** Reachable without a session: sign-in, setup, better-auth's own routes, the health check, Next's assets. */
export function isPublicPath(pathname: string): boolean {
  const p = normalisePath(pathname);
  return PUBLIC_PATHS.has(p) || p === '/api/auth' || p.startsWith('/api/auth/') || p.startsWith('/_next/');
}

/** Whether a `Cookie` header carries a non-empty better-auth session cookie (not whether it is valid). */
export function hasSessionCookie(cookieHeader: string | null | undefined): boolean {
  if (!cookieHeader) return false;
  return cookieHeader.split(';').some((part) => {
    const eq = part.indexOf('=');
    return eq > 0 && SESSION_COOKIES.includes(part.slice(0, eq).trim()) && part.slice(eq + 1).trim() !== '';
  });
}

function isApiPath(pathname: string): boolean {
  const p = normalisePath(pathname);
  return p === '/api' || p.startsWith('/api/') || isSkillServerPath(pathname);
}

export function checkRequest(facts: RequestFacts, policy: ExposurePolicy): Decision {
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

  // An MCP client is a program, not a browser: it sends no Origin, and authenticates with a token, never a cookie
  // (server/skill-server/caller.ts). A browser always sends Origin on a POST, so a cross-site page is still refused.
  const machine = facts.origin === null && isSkillServerPath(facts.pathname);
  if (!SAFE_METHODS.has(facts.method.toUpperCase()) && !machine) {
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
    if (!isOriginAllowed(origin, host, policy.ownScheme, policy.configuredOrigins)) {
      return {
        action: 'deny',
        status: 403,
        code: 'forbidden:origin',
        reason: `Cross-site request refused: Origin ${origin.scheme}://${formatHost({ hostname: origin.hostname, port: origin.port })} is not this site`,
        format,
      };
    }
  }

  if (
    !policy.exposed ||
    isPublicPath(facts.pathname) ||
    isSkillServerPath(facts.pathname) ||
    hasSessionCookie(facts.cookie)
  ) {
    return { action: 'allow' };
  }
  if (format === 'text') return { action: 'login', next: facts.pathname };
  return {
    action: 'deny',
    status: 401,
    code: 'unauthorized:session',
    reason: 'Sign in first (POST /api/auth/sign-in/email, or open /login)',
    format,
  };
}

/** A same-site path to return to after sign-in: a path of this app, never another origin (`//evil`, `/\\evil`). */
export function safeNextPath(next: string | null | undefined): string {
  if (!next?.startsWith('/') || next.startsWith('//') || /[\\\s]/.test(next)) return '/';
  const p = normalisePath(next);
  if (p === '/login' || p === '/setup' || p.startsWith('/api/') || p.startsWith('//')) return '/';
  return next;
}
