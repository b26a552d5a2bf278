/**
 * Response headers set on every response by the proxy. No CORS headers anywhere: the API serves this site's own
 * pages only, so a browser must refuse other origins' reads.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  // Only frame-ancestors: a full CSP would have to allow Next's inline bootstrap scripts; framing is the concern.
  'Content-Security-Policy': "frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/** Headers a denial must not carry even if something upstream added them. */
export const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
];

export function applySecurityHeaders(headers: Headers): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) headers.set(name, value);
  for (const name of CORS_HEADERS) headers.delete(name);
}
