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

/**
 * The policy of a page a skill built, served to the viewer's frame: its own scripts and styles run, nothing loads
 * from anywhere (no fetch, no form, no image but data: and blob:), and `sandbox allow-scripts` gives it an opaque
 * origin even when opened on its own, so it reaches neither the app's cookies nor its API.
 */
export const LIVE_HTML_CSP =
  "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; frame-ancestors 'self'";

/**
 * The one path this site frames itself: a page a skill built, in the file viewer's sandboxed frame
 * (`app/api/chats/[id]/view/[...path]`, whose own policy gives it an opaque origin and no network).
 */
const FRAMED_BY_SELF = /^\/api\/chats\/[^/]+\/view\//;

const FRAMED_HEADERS: Readonly<Record<string, string>> = {
  ...SECURITY_HEADERS,
  // The page's whole policy, not only its framing: whichever of the proxy's and the route's headers a response keeps.
  'Content-Security-Policy': LIVE_HTML_CSP,
  'X-Frame-Options': 'SAMEORIGIN',
};

/**
 * A chat's file served as it is (`app/api/chats/[id]/files/...`): opened on its own, an HTML or SVG file must not run
 * as this site's page. The proxy's headers replace a route's, so the file's policy is set here.
 */
const CHAT_FILE = /^\/api\/chats\/[^/]+\/files\/./;

const FILE_HEADERS: Readonly<Record<string, string>> = {
  ...SECURITY_HEADERS,
  'Content-Security-Policy': "sandbox; default-src 'none'; frame-ancestors 'none'",
};

export function applySecurityHeaders(headers: Headers, pathname = ''): void {
  const set = FRAMED_BY_SELF.test(pathname)
    ? FRAMED_HEADERS
    : CHAT_FILE.test(pathname)
      ? FILE_HEADERS
      : SECURITY_HEADERS;
  for (const [name, value] of Object.entries(set)) headers.set(name, value);
  for (const name of CORS_HEADERS) headers.delete(name);
}
