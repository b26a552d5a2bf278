/**
 * The admin pages' own access check (the proxy's runs first; this one keeps a page safe if a request reaches it
 * some other way). Sends a browser without a session to the login form.
 */
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import type { Decision } from '@/server/security/check';
import { checkAdminHeaders } from '@/server/security/guard';

export type AdminDenial = Extract<Decision, { action: 'deny' }>;

/** Null when the page may render; a denial (rate limit, locked admin) to show otherwise. */
export async function requireAdmin(pathname: string): Promise<AdminDenial | null> {
  const decision = checkAdminHeaders('GET', pathname, await headers());
  if (decision.action === 'allow') return null;
  if (decision.action === 'login') {
    redirect(decision.next === '/admin' ? '/admin/login' : `/admin/login?next=${encodeURIComponent(decision.next)}`);
  }
  return decision;
}
