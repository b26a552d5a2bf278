/** The admin pages' top bar: where you are, the way back to the chat, and logout when accounts are in use. */
import Link from 'next/link';
import type { ReactNode } from 'react';
import { LogoutButton } from '@/components/auth/logout-button';

export function AdminHeader({
  title,
  loggedIn,
  children,
}: {
  title: ReactNode;
  loggedIn: boolean;
  children?: ReactNode;
}) {
  return (
    <header className="admin-header">
      <div className="admin-header__title">
        <Link href="/admin" className="admin-brand">
          skillchat <span className="muted">admin</span>
        </Link>
        <span className="admin-header__sep" aria-hidden>
          /
        </span>
        <h1 data-testid="admin-title">{title}</h1>
      </div>
      <div className="admin-header__actions">
        {children}
        <Link href="/" className="button button--ghost" data-testid="back-to-chat">
          Back to chat
        </Link>
        {loggedIn && <LogoutButton />}
      </div>
    </header>
  );
}
