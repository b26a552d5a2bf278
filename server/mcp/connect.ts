/**
 * What the routes of a person's MCP connections do (app/api/me/mcp/[label]/connection, app/api/mcp/oauth/callback,
 * app/api/admin/mcp/[label]/connections/[userId]): start a sign-in, finish it and say where the browser goes back to,
 * disconnect, revoke. No token or secret is in anything returned.
 */
import { AppError } from '../errors';
import type { McpConnectionInfo } from './oauth-store';
import type { PersonalMcp } from './people';

export const CALLBACK_PATH = '/api/mcp/oauth/callback';

/**
 * The origin the person's browser used, for the callback URL: the Host it sent (the request check in
 * server/security/ already held it to the allowed hosts), not the address Next listens on (`0.0.0.0` when exposed).
 */
export function browserOrigin(request: Request): string {
  const url = new URL(request.url);
  const host = request.headers.get('host');
  const proto = request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim();
  const scheme = proto === 'https' || proto === 'http' ? `${proto}:` : url.protocol;
  return host && /^[A-Za-z0-9.\-[\]:]+$/.test(host) ? `${scheme}//${host}` : url.origin;
}

/** A page of this app to return to: a path, never another origin (`//host`, `\\host`, a scheme). */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || !/^\/(?![/\\])[^\s]*$/.test(value) || value.length > 500) return '/settings';
  return value;
}

export async function startConnect(
  people: Pick<PersonalMcp, 'begin'>,
  userId: string,
  label: string,
  options: { origin: string; returnTo?: unknown },
): Promise<{ connected: true } | { connected: false; authorizationUrl: string }> {
  try {
    return await people.begin(userId, label, {
      redirectUrl: `${options.origin}${CALLBACK_PATH}`,
      returnTo: safeReturnTo(options.returnTo),
    });
  } catch (error) {
    if (error instanceof AppError) throw error;
    // The SDK's message says which step failed (discovery, registration); it holds no token.
    throw new AppError('unavailable:mcp_oauth', `Connecting "${label}" failed: ${(error as Error).message}`);
  }
}

/** The callback: where to send the browser, with `mcp_connected=<label>` or `mcp_error=<sentence>` on the page. */
export async function finishConnect(people: Pick<PersonalMcp, 'finish'>, userId: string, url: URL): Promise<string> {
  let end: Awaited<ReturnType<PersonalMcp['finish']>>;
  try {
    end = await people.finish(userId, url.searchParams);
  } catch (error) {
    end = { ok: false, reason: `the authorization server did not give tokens: ${(error as Error).message}` };
  }
  const back = new URL(safeReturnTo(end.returnTo), url.origin);
  if (end.ok && end.server) back.searchParams.set('mcp_connected', end.server);
  else if (!end.ok) back.searchParams.set('mcp_error', end.reason.slice(0, 300));
  return `${back.pathname}${back.search}`;
}

export async function disconnect(people: Pick<PersonalMcp, 'disconnect' | 'servers'>, userId: string, label: string) {
  if (!people.servers().some((s) => s.label === label)) {
    throw new AppError('not_found:mcp_server', `"${label}" is not an MCP server that people connect to themselves`);
  }
  if (!(await people.disconnect(userId, label))) {
    throw new AppError('not_found:mcp_connection', `There is no connection to "${label}" to end`);
  }
  return { server: label, connected: false };
}

/** A person's per-person servers with their state, for /settings. */
export interface McpConnectionView {
  server: string;
  connected: boolean;
  scopes: string[];
  connectedAt: number | null;
  expiresAt: number | null;
}

export async function connectionViews(
  people: Pick<PersonalMcp, 'servers' | 'connections'>,
  userId: string,
): Promise<McpConnectionView[]> {
  const rows = new Map((await people.connections(userId)).map((c) => [c.server, c]));
  return people.servers().map(({ label }) => view(label, rows.get(label)));
}

function view(server: string, row: McpConnectionInfo | undefined): McpConnectionView {
  const connected = Boolean(row?.connected && row.readable);
  return {
    server,
    connected,
    scopes: connected ? row!.scopes : [],
    connectedAt: connected ? (row!.connectedAt?.getTime() ?? null) : null,
    expiresAt: connected ? (row!.expiresAt?.getTime() ?? null) : null,
  };
}
