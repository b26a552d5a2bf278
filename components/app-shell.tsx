/** The page frame: chat list on the left, the chat on the right. Server component; the pieces inside are client. */

import type { ReactNode } from 'react';
import type { ChatSummary } from '@/server/chat/wire-types';
import { ChatsProvider } from './chats-context';
import { type Account, ChatSidebar } from './sidebar/chat-sidebar';

export function AppShell({
  chats,
  activeChatId,
  account = null,
  children,
}: {
  chats: ChatSummary[];
  activeChatId: string | null;
  /** The signed-in account on an exposed server; null on a loopback server (no accounts, no menu). */
  account?: Account | null;
  children: ReactNode;
}) {
  return (
    <ChatsProvider initialChats={chats} activeChatId={activeChatId}>
      <div className="app">
        <ChatSidebar account={account} />
        <main className="main">{children}</main>
      </div>
    </ChatsProvider>
  );
}
