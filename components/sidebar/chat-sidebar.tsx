'use client';
import { usePathname, useRouter } from 'next/navigation';
import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
/**
 * The list of chats, newest first, with a New chat button and inline rename / delete. Below 768 px it is a drawer
 * behind a menu button (drawer.css): opening moves focus into it, Esc or the backdrop closes it and focus goes back
 * to the button, and choosing a chat closes it. Also renders the page's skip link, which must come first.
 */
import { LogoutButton } from '@/components/auth/logout-button';
import { COMPOSER_INPUT_ID } from '@/components/chat/composer-ids';
import { useChats } from '@/components/chats-context';
import { MenuIcon, PlusIcon } from '@/components/icons';
import { ChatItem } from './chat-item';
import { ChatSearch } from './chat-search';

const SIDEBAR_ID = 'chat-sidebar';

export interface Account {
  email: string;
  admin: boolean;
}

export function ChatSidebar({ account = null }: { account?: Account | null }) {
  const { chats, activeChatId, startNewChat, removeChat } = useChats();
  const router = useRouter();
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const navRef = useRef<HTMLElement>(null);

  // Whatever changes the page (a chat chosen, New chat, back) ends the drawer.
  const [lastPath, setLastPath] = useState(pathname);
  if (lastPath !== pathname) {
    setLastPath(pathname);
    setOpen(false);
  }

  useEffect(() => {
    if (!open) return;
    const nav = navRef.current;
    // The current chat if there is one, else the first thing in the drawer.
    const target =
      nav?.querySelector<HTMLElement>('[aria-current="page"]') ?? nav?.querySelector<HTMLElement>('button, a');
    target?.focus();
  }, [open]);

  const close = (returnFocus: boolean) => {
    setOpen(false);
    if (returnFocus) toggleRef.current?.focus();
  };

  const onNavKey = (event: KeyboardEvent<HTMLElement>) => {
    // A rename or delete prompt inside handles its own Esc first (and stops it).
    if (event.key === 'Escape' && open) {
      event.preventDefault();
      close(true);
    }
  };

  const onNewChat = () => {
    startNewChat();
    setOpen(false);
    // The new-chat screen may already be mounted under a replaced URL (/chat/:id): the key bump above resets it.
    if (pathname !== '/') router.push('/');
  };

  const onDeleted = (id: string) => {
    removeChat(id);
    if (id === activeChatId) {
      startNewChat();
      router.replace('/');
    }
  };

  return (
    <>
      <a
        href={`#${COMPOSER_INPUT_ID}`}
        className="skip-link"
        data-testid="skip-link"
        onClick={(event) => {
          const input = document.getElementById(COMPOSER_INPUT_ID);
          if (!input) return;
          event.preventDefault();
          input.focus();
        }}
      >
        Skip to the message box
      </a>
      <button
        ref={toggleRef}
        type="button"
        className="icon-button drawer-toggle"
        aria-label="Chats"
        aria-expanded={open}
        aria-controls={SIDEBAR_ID}
        onClick={() => setOpen((o) => !o)}
        data-testid="drawer-toggle"
      >
        <MenuIcon width={20} height={20} />
      </button>
      {open ? (
        // A pointer's way out (aria-hidden: the keyboard's is Esc).
        <div className="drawer-backdrop" aria-hidden="true" onClick={() => close(true)} data-testid="drawer-backdrop" />
      ) : null}
      <nav
        ref={navRef}
        id={SIDEBAR_ID}
        className={`sidebar${open ? ' sidebar--open' : ''}`}
        aria-label="Chats"
        data-testid="sidebar"
        data-open={open}
        onKeyDown={onNavKey}
        // Tabbing (or clicking) out of an open drawer leaves it: it does not stay over the chat that now has focus.
        onBlur={(event) => {
          const to = event.relatedTarget;
          if (open && to instanceof Node && !event.currentTarget.contains(to)) setOpen(false);
        }}
      >
        <div className="sidebar__top">
          <span className="brand">skillchat</span>
          <button
            type="button"
            className="button button--primary new-chat"
            onClick={onNewChat}
            data-testid="new-chat-button"
          >
            <PlusIcon width={15} height={15} />
            New chat
          </button>
        </div>
        <ChatSearch activeChatId={activeChatId}>
          {chats.length === 0 ? (
            <p className="sidebar__empty">No chats yet.</p>
          ) : (
            <ul className="chat-list" data-testid="chat-list">
              {chats.map((chat) => (
                <ChatItem
                  key={chat.id}
                  chat={chat}
                  active={chat.id === activeChatId}
                  onDeleted={onDeleted}
                  onChosen={() => setOpen(false)}
                />
              ))}
            </ul>
          )}
        </ChatSearch>
        <div className="sidebar__footer">
          {account && (
            <div className="account-menu" data-testid="account-menu">
              <span className="account-menu__email" title={account.email} data-testid="account-email">
                {account.email}
              </span>
              <a href="/settings/tokens" className="button button--ghost button--small" data-testid="tokens-link">
                Tokens
              </a>
              <LogoutButton className="button button--ghost button--small" />
            </div>
          )}
          {/* A plain link: the admin page is its own layout. Members have no admin page. */}
          {(!account || account.admin) && (
            <a href="/admin" className="sidebar__admin" data-testid="admin-link">
              Skills &amp; admin
            </a>
          )}
        </div>
      </nav>
    </>
  );
}
