/**
 * The admin pages' own access check (the proxy only saw a session cookie): sends a browser without a valid
 * session to /login, and tells a member that the page is for admins.
 */
import { pageUser } from '../../_lib/page-user';

export interface AdminDenial {
  status: 403;
  reason: string;
}

/** Null when the page may render; a denial to show otherwise. */
export async function requireAdmin(pathname: string): Promise<AdminDenial | null> {
  const user = await pageUser(pathname);
  if (user.role === 'admin') return null;
  return { status: 403, reason: 'This page is for admins. Ask an admin if you need access.' };
}
