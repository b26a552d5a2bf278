'use client';
/** Signs out (better-auth's `/api/auth/sign-out`) and goes to the sign-in page. */
export function LogoutButton({ className = 'button button--ghost' }: { className?: string }) {
  async function signOut() {
    await fetch('/api/auth/sign-out', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    }).catch(() => null);
    window.location.assign('/login');
  }
  return (
    <button type="button" className={className} onClick={signOut} data-testid="logout">
      Log out
    </button>
  );
}
