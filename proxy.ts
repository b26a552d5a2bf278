/**
 * Runs before every route (pages, route handlers, static files): applies the access rules of `server/security`
 * (Host allowlist, Origin on writes, and on an exposed server a session cookie), then refuses requests no route can answer (malformed
 * percent-escapes, unsupported methods), and sets the security headers. The decisions live in `checkRequest` and
 * `checkRequestShape`; this file only translates them to responses.
 */
import { type NextRequest, NextResponse } from 'next/server';
import { checkRequest, type Decision } from './server/security/check';
import { getExposurePolicy } from './server/security/exposure-policy';
import { applySecurityHeaders } from './server/security/headers';
import { checkRequestShape, type ShapeDecision } from './server/security/request-shape';

function denial(decision: Extract<Decision, { action: 'deny' }>): Response {
  const headers = new Headers({ 'cache-control': 'no-store' });
  let response: Response;
  if (decision.format === 'json') {
    response = Response.json({ error: decision.reason, code: decision.code }, { status: decision.status, headers });
  } else {
    headers.set('content-type', 'text/plain; charset=utf-8');
    response = new Response(`${decision.reason}\n`, { status: decision.status, headers });
  }
  applySecurityHeaders(response.headers);
  return response;
}

function refusal(shape: Extract<ShapeDecision, { ok: false }>): Response {
  const headers = new Headers({ 'cache-control': 'no-store' });
  if (shape.allow) headers.set('allow', shape.allow);
  const response = Response.json({ error: shape.reason, code: shape.code }, { status: shape.status, headers });
  applySecurityHeaders(response.headers);
  return response;
}

export function proxy(request: NextRequest): Response {
  let decision: Decision;
  try {
    decision = checkRequest(
      {
        method: request.method,
        pathname: request.nextUrl.pathname,
        // The raw header: `nextUrl.host` is Next's reconstruction, not what the client sent.
        host: request.headers.get('host'),
        origin: request.headers.get('origin'),
        cookie: request.headers.get('cookie'),
      },
      getExposurePolicy(),
    );
  } catch (error) {
    // A broken configuration must not leave the routes unguarded: refuse everything until it is fixed.
    console.error('[skillchat] access check failed', error);
    return Response.json(
      { error: 'Server configuration error; see the server log', code: 'internal:config' },
      { status: 500, headers: { 'cache-control': 'no-store' } },
    );
  }

  if (decision.action === 'deny') return denial(decision);
  if (decision.action === 'login') {
    // Next requires an absolute URL here and turns a same-origin one back into a relative `Location`.
    const url = request.nextUrl.clone();
    const next = `${request.nextUrl.pathname}${request.nextUrl.search}`;
    url.pathname = '/login';
    url.search = '';
    if (next !== '/') url.searchParams.set('next', next);
    const response = NextResponse.redirect(url, 303);
    response.headers.set('cache-control', 'no-store');
    applySecurityHeaders(response.headers);
    return response;
  }
  const shape = checkRequestShape(request.method, request.nextUrl.pathname);
  if (!shape.ok) return refusal(shape);
  const response = NextResponse.next();
  applySecurityHeaders(response.headers, request.nextUrl.pathname);
  return response;
}
