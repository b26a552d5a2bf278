/** POST /api/admin/logout: forgets the admin session in this browser and goes back to the login form. */
import { clearedSessionCookie } from '@/server/security/cookie';

export const dynamic = 'force-dynamic';

export function POST(): Response {
  return new Response(null, {
    status: 303,
    headers: { location: '/admin/login', 'set-cookie': clearedSessionCookie(), 'cache-control': 'no-store' },
  });
}
