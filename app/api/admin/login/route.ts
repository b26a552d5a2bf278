/**
 * POST /api/admin/login: exchanges the admin token for a session cookie. Takes the login form
 * (`application/x-www-form-urlencoded`: `token`, `next`; answers with redirects) or JSON (`{ token }`; answers
 * `{ ok }` or `{ error, code }` with the status, for scripts and tests). The proxy has already checked Host and
 * Origin; the token check and its failure limit are in `attemptLogin`.
 */
import { safeNextPath } from '@/server/security/check';
import { sessionCookie } from '@/server/security/cookie';
import { attemptLogin } from '@/server/security/login';
import { getAdminFailureLimiter } from '@/server/security/rate-limit';
import { getAccessPolicy } from '@/server/security/runtime';

export const dynamic = 'force-dynamic';

/** A token and a return path fit in far less; a bigger body is not a login. */
const MAX_BODY_BYTES = 8 * 1024;

interface LoginInput {
  form: boolean;
  token: unknown;
  next: string | null;
}

async function readInput(request: Request): Promise<LoginInput | null> {
  const type = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
  const text = await request.text();
  if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES) return null;
  if (type === 'application/x-www-form-urlencoded') {
    const params = new URLSearchParams(text);
    return { form: true, token: params.get('token'), next: params.get('next') };
  }
  if (type === 'application/json') {
    try {
      const body: unknown = JSON.parse(text);
      const token = body && typeof body === 'object' && 'token' in body ? body.token : undefined;
      return { form: false, token, next: null };
    } catch {
      return null;
    }
  }
  return null;
}

function redirect(location: string, extra: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store', ...extra } });
}

export async function POST(request: Request): Promise<Response> {
  const input = await readInput(request);
  if (!input) {
    return Response.json(
      { error: 'Send the token as a form field or as JSON { "token": "..." }', code: 'bad_request:admin_login' },
      { status: 400, headers: { 'cache-control': 'no-store' } },
    );
  }
  const result = attemptLogin(input.token, getAccessPolicy(), getAdminFailureLimiter());
  const next = safeNextPath(input.next);
  if (result.ok) {
    const headers: Record<string, string> = {};
    if (result.session) {
      headers['set-cookie'] = sessionCookie(result.session, { secure: new URL(request.url).protocol === 'https:' });
    }
    if (input.form) return redirect(next, headers);
    return Response.json({ ok: true }, { headers: { 'cache-control': 'no-store', ...headers } });
  }
  const retry: Record<string, string> = result.retryAfter ? { 'retry-after': String(result.retryAfter) } : {};
  if (input.form) {
    const params = new URLSearchParams({ error: result.code.split(':')[0] ?? 'error' });
    if (next !== '/admin') params.set('next', next);
    return redirect(`/admin/login?${params}`, retry);
  }
  return Response.json(
    { error: result.reason, code: result.code },
    { status: result.status, headers: { 'cache-control': 'no-store', ...retry } },
  );
}
