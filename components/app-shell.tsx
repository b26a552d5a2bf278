/** The page frame: chat list on the left, the chat on the right. Server component; the pieces inside are client. */

import type { ReactNode } from 'react';
import type { ChatSummary } from '@/server/chat/types';
import { ChatsProvider } from './chats-context';
import { ChatSidebar } from './sidebar/chat-sidebar';

export function AppShell({
  chats,
  activeChatId,
  children,
}: {
  chats: ChatSummary[];
  activeChatId: string | null;
  children: ReactNode;
}) {
  return (
    <ChatsProvider initialChats={chats} activeChatId={activeChatId}>
      <div className="app">
        <ChatSidebar />
        <main className="main">{children}</main>
      </div>
    </ChatsProvider>
  );
}
