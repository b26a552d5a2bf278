'use client';
import { useHydrated } from '@/components/lib/use-hydrated';

/**
 * Signs out (better-auth's `/api/auth/sign-out`) and goes to the sign-in page. Disabled until hydrated: a click in the
 * server's HTML did nothing, so the person stayed signed in (an e2e test once waited 20 s for the sign-in page).
 */
export function LogoutButton({ className = 'button button--ghost' }: { className?: string }) {
  const hydrated = useHydrated();
  async function signOut() {
    await fetch('/api/auth/sign-out', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    }).catch(() => null);
    window.location.assign('/login');
  }
  return (
    <button type="button" className={className} onClick={signOut} disabled={!hydrated} data-testid="logout">
      Log out
    </button>
  );
}
