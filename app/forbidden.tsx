/**
 * What `forbidden()` renders, with HTTP 403: only the admin pages call it (`app/admin/_lib/guard.ts`), for a
 * signed-in member.
 */
import Link from 'next/link';

export default function Forbidden() {
  return (
    <main data-testid="admin-denied" style={{ padding: '4rem 2rem', maxWidth: 560, margin: '0 auto' }}>
      <h1>403 · Admins only</h1>
      <p>This page is for admins. Ask an admin if you need access.</p>
      <p>
        <Link href="/">Back to chat</Link>
      </p>
    </main>
  );
}
