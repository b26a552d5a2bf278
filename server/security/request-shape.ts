/**
 * Requests no route can answer, refused before route code runs, with the app's JSON error shape: a path with a
 * malformed percent-escape (Next's router threw on `/api/chats/%ZZ` and answered a bare 500) and a method the
 * route does not have (Next answered an empty 405, or rendered a page for `PUT /`), and an API path no route has
 * (Next's HTML not-found page). Used by `proxy.ts` after the access check; TRACE never reaches it (see `methods.ts`).
 */

/**
 * The API routes and their methods: `app/api/**\/route.ts`, `app/mcp` and `app/.well-known` in one table (a test
 * keeps the two in step).
 */
export const API_ROUTES: ReadonlyArray<{ pattern: string; methods: readonly string[] }> = [
  { pattern: '/api/chat', methods: ['POST'] },
  { pattern: '/api/chats', methods: ['GET', 'POST'] },
  { pattern: '/api/chats/[id]', methods: ['GET', 'PATCH', 'DELETE'] },
  { pattern: '/api/chats/[id]/stop', methods: ['POST'] },
  { pattern: '/api/chats/[id]/elicitations', methods: ['POST'] },
  { pattern: '/api/chats/[id]/versions', methods: ['GET', 'POST'] },
  { pattern: '/api/chats/[id]/messages', methods: ['GET'] },
  { pattern: '/api/chats/[id]/stream', methods: ['GET'] },
  { pattern: '/api/chats/[id]/export', methods: ['GET'] },
  { pattern: '/api/chats/[id]/files', methods: ['GET', 'POST'] },
  { pattern: '/api/chats/[id]/files/[...path]', methods: ['GET'] },
  { pattern: '/api/chats/[id]/view/[...path]', methods: ['GET'] },
  { pattern: '/api/models', methods: ['GET'] },
  { pattern: '/api/skills', methods: ['GET'] },
  { pattern: '/api/me/skills', methods: ['GET'] },
  { pattern: '/api/me/skills/[name]', methods: ['PUT'] },
  { pattern: '/api/me/personal-skills', methods: ['GET', 'POST'] },
  { pattern: '/api/me/personal-skills/[name]', methods: ['DELETE'] },
  { pattern: '/api/me/mcp', methods: ['GET'] },
  { pattern: '/api/me/mcp/[label]', methods: ['PUT'] },
  { pattern: '/api/me/mcp/[label]/connection', methods: ['POST', 'DELETE'] },
  { pattern: '/api/mcp/oauth/callback', methods: ['GET'] },
  { pattern: '/api/admin/mcp/[label]/connections/[userId]', methods: ['DELETE'] },
  { pattern: '/api/status', methods: ['GET'] },
  { pattern: '/api/auth/[...all]', methods: ['GET', 'POST'] },
  { pattern: '/api/setup', methods: ['POST'] },
  { pattern: '/api/admin/users', methods: ['GET', 'POST'] },
  { pattern: '/api/admin/users/[email]', methods: ['PATCH', 'DELETE'] },
  { pattern: '/api/admin/overview', methods: ['GET'] },
  { pattern: '/api/admin/rescan', methods: ['POST'] },
  { pattern: '/api/admin/skills/install', methods: ['POST'] },
  { pattern: '/api/admin/skills/create', methods: ['POST'] },
  { pattern: '/api/admin/skills/[name]/skill-file', methods: ['GET', 'PUT'] },
  { pattern: '/api/admin/skills/[name]/draft', methods: ['POST'] },
  { pattern: '/api/admin/skills/[name]/files', methods: ['GET', 'PUT'] },
  { pattern: '/api/admin/skills/[name]/trigger-check', methods: ['GET', 'POST'] },
  { pattern: '/api/admin/skills/[name]/describe', methods: ['GET', 'POST'] },
  { pattern: '/api/admin/skills/[name]/output-evals', methods: ['GET', 'POST', 'DELETE'] },
  { pattern: '/api/admin/skills/[name]/mode', methods: ['POST'] },
  { pattern: '/api/admin/skills/[name]/uninstall', methods: ['POST'] },
  { pattern: '/api/admin/skills/[name]/export', methods: ['GET'] },
  { pattern: '/api/admin/grants/[id]/revoke', methods: ['POST'] },
  { pattern: '/api/admin/egress/export', methods: ['GET'] },
  { pattern: '/api/admin/secrets/[name]', methods: ['PUT', 'DELETE'] },
  { pattern: '/api/admin/model-connections', methods: ['GET', 'POST'] },
  { pattern: '/api/admin/model-connections/test', methods: ['POST'] },
  { pattern: '/api/admin/model-connections/[id]', methods: ['PATCH', 'DELETE'] },
  { pattern: '/api/me/tokens', methods: ['GET', 'POST'] },
  { pattern: '/api/me/tokens/[id]', methods: ['DELETE'] },
  { pattern: '/api/me/grants/[id]', methods: ['DELETE'] },
  { pattern: '/api/me/secrets', methods: ['GET'] },
  { pattern: '/api/me/secrets/[name]', methods: ['PUT', 'DELETE'] },
  // The skill server: routes outside /api, for programs.
  { pattern: '/mcp', methods: ['POST'] },
  { pattern: '/.well-known/agent-skills/[...path]', methods: ['GET'] },
];

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** Pages are only read: the app has no server actions and its forms post to API routes. */
const PAGE_METHODS = ['GET', 'HEAD'];

export type ShapeDecision =
  | { ok: true }
  | { ok: false; status: 400 | 404 | 405; code: string; reason: string; allow?: string };

function matches(pattern: string, segments: readonly string[]): boolean {
  const parts = pattern.split('/').slice(1);
  // A catch-all (`[...all]`) takes one or more segments.
  if (parts.at(-1)?.startsWith('[...')) {
    return (
      segments.length >= parts.length && parts.slice(0, -1).every((p, i) => p.startsWith('[') || p === segments[i])
    );
  }
  return parts.length === segments.length && parts.every((p, i) => p.startsWith('[') || p === segments[i]);
}

/**
 * The methods a path answers (HEAD with GET; OPTIONS on APIs, which Next answers itself); null for Next's own
 * paths; 'no-route' for an API path no route has (Next would answer with its HTML not-found page).
 */
function allowedMethods(pathname: string): string[] | null | 'no-route' {
  // Next's own assets and dev endpoints are not app routes.
  if (pathname.startsWith('/_next/') || pathname.startsWith('/__nextjs')) return null;
  const trimmed = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  const segments = trimmed.split('/').slice(1);
  const route = API_ROUTES.find((r) => matches(r.pattern, segments));
  if (!route && segments[0] !== 'api') return PAGE_METHODS;
  if (!route) return 'no-route';
  return [...route.methods, ...(route.methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'];
}

export function checkRequestShape(method: string, pathname: string): ShapeDecision {
  try {
    decodeURIComponent(pathname);
  } catch {
    return {
      ok: false,
      status: 400,
      code: 'bad_request:path',
      reason: 'The URL path has a malformed percent-escape: write % as %25, and escape only valid UTF-8 (%XX)',
    };
  }
  const upper = method.toUpperCase();
  const allowed = allowedMethods(pathname);
  if (allowed === 'no-route') {
    return { ok: false, status: 404, code: 'not_found:route', reason: 'No API route has this path' };
  }
  if (HTTP_METHODS.has(upper) && (allowed === null || allowed.includes(upper))) return { ok: true };
  const allow = (allowed ?? [...HTTP_METHODS]).join(', ');
  return {
    ok: false,
    status: 405,
    code: 'method_not_allowed:request',
    reason: `Method ${upper.slice(0, 32)} is not supported here; use ${allow}`,
    allow,
  };
}
