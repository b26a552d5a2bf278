/**
 * The admin check again, inside the admin route handlers and pages: the proxy already ran it, but a path its
 * matching missed (an encoding, a future route) must still not reach admin data. Works on web-standard `Request`
 * and `Headers`, so it needs no Next import.
 */
import { checkRequest, type Decision } from './check';
import { clearedSessionCookie, readSessionCookie } from './cookie';
import { getAdminFailureLimiter } from './rate-limit';
import { getAccessPolicy } from './runtime';

/** Any header bag: `Request.headers`, or Next's read-only `headers()` in a page. */
export interface HeaderReader {
  get(name: string): string | null;
}

export function checkAdminHeaders(method: string, pathname: string, headers: HeaderReader): Decision {
  return checkRequest(
    {
      method,
      pathname,
      host: headers.get('host'),
      origin: headers.get('origin'),
      session: readSessionCookie(headers.get('cookie')),
    },
    getAccessPolicy(),
    { limiter: getAdminFailureLimiter() },
  );
}

/** Null when the request may proceed; otherwise the JSON error response to return. */
export function guardAdminRequest(request: Request): Response | null {
  const decision = checkAdminHeaders(request.method, new URL(request.url).pathname, request.headers);
  if (decision.action === 'allow') return null;
  const headers = new Headers({ 'cache-control': 'no-store' });
  if (decision.action === 'login') {
    return Response.json(
      { error: 'Admin login required (POST /api/admin/login)', code: 'unauthorized:admin' },
      { status: 401, headers },
    );
  }
  if (decision.retryAfter !== undefined) headers.set('retry-after', String(decision.retryAfter));
  if (decision.clearSession) headers.append('set-cookie', clearedSessionCookie());
  return Response.json({ error: decision.reason, code: decision.code }, { status: decision.status, headers });
}
