/**
 * better-auth's HTTP handler, with its failures in the app's shape: every API error is JSON `{ error, code }`
 * (better-auth answers `{ message, code }`, or an empty 404 for a path it does not have). Cookies and
 * `Retry-After` pass through; successful answers are untouched.
 */
import type { Auth } from './auth';

const KIND: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

function sentence(status: number, message: unknown): string {
  if (typeof message === 'string' && message.length >= 8) return message;
  if (status === 404) return 'No such sign-in endpoint';
  return `The sign-in service refused the request (${status})`;
}

export async function asAppError(response: Response): Promise<Response> {
  if (response.status < 400) return response;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { message?: unknown; code?: unknown } | null;
  const given = typeof body?.code === 'string' ? body.code : '';
  // Our own codes (`rate_limited:account`) are kept; better-auth's (`INVALID_EMAIL_OR_PASSWORD`) get a kind.
  const code = given.includes(':')
    ? given
    : `${KIND[response.status] ?? (response.status >= 500 ? 'internal' : 'bad_request')}:${given.toLowerCase() || 'auth'}`;
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json');
  headers.delete('content-length');
  return new Response(JSON.stringify({ error: sentence(response.status, body?.message), code }), {
    status: response.status,
    headers,
  });
}

export async function handleAuthRequest(auth: Auth, request: Request): Promise<Response> {
  return asAppError(await auth.handler(request));
}
