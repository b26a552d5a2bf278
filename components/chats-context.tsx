'use client';
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';
/**
 * The sidebar's list of chats, shared with the chat view so a new chat, a rename or a delete shows up everywhere at
 * once without a round trip. Seeded by the server-rendered page; kept newest first.
 */
import { listChats } from '@/components/lib/api';
import { useReloadOnReaddressedTraversal } from '@/components/lib/history';
import type { ChatSummary } from '@/server/chat/wire-types';

interface ChatsContextValue {
  chats: ChatSummary[];
  /** The chat shown in the main pane (null on the empty new-chat screen). */
  activeChatId: string | null;
  setActiveChatId: (id: string | null) => void;
  upsertChat: (chat: ChatSummary) => void;
  /** Moves a chat to the top after a new message, the way the server orders it. */
  touchChat: (id: string) => void;
  removeChat: (id: string) => void;
  /** Re-reads the list from the server (titles it derived, its order). */
  refreshChats: () => Promise<void>;
  /** Changes whenever the person asks for a new chat, so the new-chat screen remounts with a fresh id. */
  newChatKey: number;
  startNewChat: () => void;
}

const ChatsContext = createContext<ChatsContextValue | null>(null);

function newestFirst(chats: ChatSummary[]): ChatSummary[] {
  return [...chats].sort((a, b) => b.updatedAt - a.updatedAt);
}

export function ChatsProvider({
  initialChats,
  activeChatId: initialActiveId,
  children,
}: {
  initialChats: ChatSummary[];
  activeChatId: string | null;
  children: ReactNode;
}) {
  const [chats, setChats] = useState(() => newestFirst(initialChats));
  const [activeChatId, setActiveChatId] = useState(initialActiveId);
  const [newChatKey, setNewChatKey] = useState(0);
  // Mounted on every page, so it is listening whenever Back or Forward lands on a re-addressed new chat.
  useReloadOnReaddressedTraversal();

  // A soft navigation re-renders the page with fresh server data: adopt it (React's "adjust state on prop change").
  const [seen, setSeen] = useState({ initialChats, initialActiveId });
  if (seen.initialChats !== initialChats || seen.initialActiveId !== initialActiveId) {
    setSeen({ initialChats, initialActiveId });
    setChats(newestFirst(initialChats));
    setActiveChatId(initialActiveId);
  }

  const upsertChat = useCallback((chat: ChatSummary) => {
    setChats((list) => newestFirst([chat, ...list.filter((c) => c.id !== chat.id)]));
  }, []);
  const touchChat = useCallback((id: string) => {
    const now = Date.now();
    setChats((list) =>
      newestFirst(list.map((c) => (c.id === id ? { ...c, updatedAt: Math.max(now, c.updatedAt) } : c))),
    );
  }, []);
  const removeChat = useCallback((id: string) => {
    setChats((list) => list.filter((c) => c.id !== id));
  }, []);
  const refreshChats = useCallback(async () => {
    try {
      setChats(newestFirst(await listChats()));
    } catch {
      // The local list stays; the next navigation brings the server's.
    }
  }, []);
  const startNewChat = useCallback(() => {
    setActiveChatId(null);
    setNewChatKey((k) => k + 1);
  }, []);

  const value = useMemo(
    () => ({
      chats,
      activeChatId,
      setActiveChatId,
      upsertChat,
      touchChat,
      removeChat,
      refreshChats,
      newChatKey,
      startNewChat,
    }),
    [chats, activeChatId, upsertChat, touchChat, removeChat, refreshChats, newChatKey, startNewChat],
  );
  return <ChatsContext value={value}>{children}</ChatsContext>;
}

export function useChats(): ChatsContextValue {
  const value = useContext(ChatsContext);
  if (!value) throw new Error('useChats must be used inside <ChatsProvider>');
  return value;
}
