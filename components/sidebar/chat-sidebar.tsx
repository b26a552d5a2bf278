'use client';
import { usePathname, useRouter } from 'next/navigation';
/** The list of chats, newest first, with a New chat button and inline rename / delete. */
import { useChats } from '@/components/chats-context';
import { PlusIcon } from '@/components/icons';
import { ChatItem } from './chat-item';
import { ChatSearch } from './chat-search';

export function ChatSidebar() {
  const { chats, activeChatId, startNewChat, removeChat } = useChats();
  const router = useRouter();
  const pathname = usePathname();

  const onNewChat = () => {
    startNewChat();
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
    <nav className="sidebar" aria-label="Chats">
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
              <ChatItem key={chat.id} chat={chat} active={chat.id === activeChatId} onDeleted={onDeleted} />
            ))}
          </ul>
        )}
      </ChatSearch>
      <div className="sidebar__footer">
        {/* A plain link: the admin page is its own layout, and on an exposed server it asks for the token first. */}
        <a href="/admin" className="sidebar__admin" data-testid="admin-link">
          Skills &amp; admin
        </a>
      </div>
    </nav>
  );
}
