/**
 * The pages' own access check (the proxy only saw that a session cookie was there): the person viewing, or a
 * redirect to /login when the session is missing or has ended.
 */
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { cache } from 'react';
import { currentUser } from '@/app/_lib/current-user';
import type { CurrentUser } from '@/server/auth/roles';

/** The person viewing (null: no valid session), looked up once per request; metadata and page share it. */
export const viewer = cache(async (): Promise<CurrentUser | null> => currentUser(await headers()));

export async function pageUser(pathname: string): Promise<CurrentUser> {
  const user = await viewer();
  if (!user) redirect(pathname === '/' ? '/login' : `/login?next=${encodeURIComponent(pathname)}`);
  return user;
}

/** What the account menu shows: nothing on a loopback server (no accounts), else the signed-in email. */
export function accountOf(user: CurrentUser): { email: string; admin: boolean } | null {
  return user.email === null ? null : { email: user.email, admin: user.role === 'admin' };
}
