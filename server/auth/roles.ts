/**
 * Who is asking, in one place. On an exposed server it is the signed-in account (one `auth.api.getSession` call,
 * which also refuses sessions of disabled or deleted accounts); on a loopback-only server it is the built-in local
 * person, an admin, with no login (the single-person app as before). Route handlers and pages call `requireUser` /
 * `requireAdmin`: the proxy only looked for the session cookie, this is the authoritative check.
 */

import { LOCAL_USER_ID } from '../db/local-user';
import { AppError } from '../errors';
import type { Auth } from './auth';

export interface CurrentUser {
  id: string;
  /** Null for the local person of a loopback server. */
  email: string | null;
  role: 'admin' | 'member';
}

export const LOCAL_USER: CurrentUser = { id: LOCAL_USER_ID, email: null, role: 'admin' };

/** What the check needs from the app: whether accounts are in force, and how to read a session. */
export interface SessionContext {
  exposed: boolean;
  auth: Pick<Auth, 'api'> | { api: { getSession: (input: { headers: Headers }) => Promise<unknown> } };
}

type HeaderSource = Request | Headers | { get(name: string): string | null; forEach?: unknown };

function toHeaders(source: HeaderSource): Headers {
  if (source instanceof Request) return source.headers;
  if (source instanceof Headers) return source;
  // Next's read-only `headers()`: copy the two that matter for a session.
  const out = new Headers();
  for (const name of ['cookie', 'host']) {
    const value = source.get(name);
    if (value !== null) out.set(name, value);
  }
  return out;
}

interface SessionShape {
  user?: { id?: unknown; email?: unknown; role?: unknown; banned?: unknown };
}

/** The signed-in person, the local person on a loopback server, or null (no or no longer valid session). */
export async function currentUserIn(ctx: SessionContext, source: HeaderSource): Promise<CurrentUser | null> {
  if (!ctx.exposed) return LOCAL_USER;
  const session = (await ctx.auth.api.getSession({ headers: toHeaders(source) })) as SessionShape | null;
  const user = session?.user;
  if (!user || typeof user.id !== 'string' || user.banned === true) return null;
  return {
    id: user.id,
    email: typeof user.email === 'string' ? user.email : null,
    role: user.role === 'admin' ? 'admin' : 'member',
  };
}

export async function requireUserIn(ctx: SessionContext, source: HeaderSource): Promise<CurrentUser> {
  const user = await currentUserIn(ctx, source);
  if (!user) throw new AppError('unauthorized:session', 'Sign in first (your session is missing or has ended)');
  return user;
}

export async function requireAdminIn(ctx: SessionContext, source: HeaderSource): Promise<CurrentUser> {
  const user = await requireUserIn(ctx, source);
  if (user.role !== 'admin') throw new AppError('forbidden:admin', 'Only admins may do this');
  return user;
}
