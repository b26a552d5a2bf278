/**
 * Who is asking the skill server. On a loopback-only server, the local person (no login, as everywhere there). On an
 * exposed server, a personal access token sent as `Authorization: Bearer sc_...` (server/auth/personal-tokens.ts);
 * where the route allows it (the well-known files, read in a browser), a session cookie too. `/mcp` takes only the
 * token: a request carrying one uses no cookie, so a cross-site page cannot borrow a signed-in browser's session.
 */

import { bearerToken, personForToken } from '../auth/personal-tokens';
import type { CurrentUser } from '../auth/roles';
import { LOCAL_USER } from '../auth/roles';
import type { Database } from '../db';
import { AppError } from '../errors';

export interface CallerContext {
  exposed: boolean;
  db: Database;
  /** The signed-in person of a session cookie (`currentUser`), for routes that accept one. */
  sessionUser?: () => Promise<CurrentUser | null>;
}

const HOW = 'Send a personal access token as "Authorization: Bearer <token>" (make one at /settings/tokens)';

export async function skillServerCaller(
  ctx: CallerContext,
  headers: Headers,
): Promise<{ person: CurrentUser; token: string | null }> {
  const token = bearerToken(headers.get('authorization'));
  if (!ctx.exposed) return { person: LOCAL_USER, token };
  if (token !== null) {
    const person = await personForToken(ctx.db, token);
    if (!person) throw new AppError('unauthorized:token', `The token is not valid (revoked, or unknown). ${HOW}`);
    return { person, token };
  }
  const session = ctx.sessionUser ? await ctx.sessionUser() : null;
  if (session) return { person: session, token: null };
  throw new AppError('unauthorized:token', HOW);
}
