/**
 * The admin pages' own access check (the proxy only saw a session cookie): sends a browser without a valid
 * session to /login, and answers a member with Next's `forbidden()`: HTTP 403 and `app/forbidden.tsx`, so the status
 * says what the page says (a 200 "Admins only" page reads as success to scripts and monitors).
 */
import { forbidden } from 'next/navigation';
import { pageUser } from '../../_lib/page-user';

/** Returns when the person may see admin pages; otherwise redirects (no session) or throws the 403. */
export async function requireAdmin(pathname: string): Promise<void> {
  const user = await pageUser(pathname);
  if (user.role !== 'admin') forbidden();
}
