/**
 * `currentUser` / `requireUser` / `requireAdmin` bound to the running app: its auth instance and the process's
 * access policy (exposed or loopback). Route handlers call these; the rules live in `access.ts`.
 */
import { getApp } from '../app';
import { getAccessPolicy } from '../security/runtime';
import { type AccessContext, type CurrentUser, currentUserIn, requireAdminIn, requireUserIn } from './access';

type Source = Parameters<typeof currentUserIn>[1];

function context(): AccessContext {
  const { exposed } = getAccessPolicy();
  // On a loopback server the auth instance is never needed for the check: do not build it for that.
  return exposed ? { exposed, auth: getApp().auth } : { exposed, auth: { api: { getSession: async () => null } } };
}

/** The person asking: the signed-in account (exposed), the local person (loopback), or null. */
export function currentUser(source: Source): Promise<CurrentUser | null> {
  return currentUserIn(context(), source);
}

/** The person asking, or a 401 `unauthorized:session` AppError. */
export function requireUser(source: Source): Promise<CurrentUser> {
  return requireUserIn(context(), source);
}

/** An admin asking, or a 401 (nobody signed in) / 403 `forbidden:admin` (a member) AppError. */
export function requireAdmin(source: Source): Promise<CurrentUser> {
  return requireAdminIn(context(), source);
}
