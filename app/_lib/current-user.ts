/**
 * Who is asking: the ONE place routes and pages learn the person a request acts for. `currentUser` /
 * `requireUser` / `requireAdmin` are bound to the running app: its auth instance and the process's exposure policy
 * (exposed or loopback). The rules live in `server/auth/roles.ts`; binding them to the app is the app's business, so
 * this lives in app/ and server/ never imports its own composition root.
 */
import { getApp } from '@/server/app';
import {
  type CurrentUser,
  currentUserIn,
  requireAdminIn,
  requireUserIn,
  type SessionContext,
} from '@/server/auth/roles';
import { getExposurePolicy } from '@/server/security/exposure-policy';

type Source = Parameters<typeof currentUserIn>[1];

async function context(): Promise<SessionContext> {
  const { exposed } = getExposurePolicy();
  // On a loopback server the auth instance is never needed for the check: do not build it for that.
  return exposed
    ? { exposed, auth: (await getApp()).auth }
    : { exposed, auth: { api: { getSession: async () => null } } };
}

/** The person asking: the signed-in account (exposed), the local person (loopback), or null. */
export async function currentUser(source: Source): Promise<CurrentUser | null> {
  return currentUserIn(await context(), source);
}

/** The person asking, or a 401 `unauthorized:session` AppError. */
export async function requireUser(source: Source): Promise<CurrentUser> {
  return requireUserIn(await context(), source);
}

/** An admin asking, or a 401 (nobody signed in) / 403 `forbidden:admin` (a member) AppError. */
export async function requireAdmin(source: Source): Promise<CurrentUser> {
  return requireAdminIn(await context(), source);
}

/** The id whose chats, files and activations a request may reach (401 without a session when exposed). */
export async function currentUserId(source: Source): Promise<string> {
  return (await requireUser(source)).id;
}
