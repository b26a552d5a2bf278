import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { listChatSummaries, loadChatView, modelMenu } from '@/app/_lib/queries';
import { AppShell } from '@/components/app-shell';
import { ChatView } from '@/components/chat/chat-view';
import { accountOf, pageUser, viewer } from '../../_lib/page-user';

export const dynamic = 'force-dynamic';

interface ChatPageProps {
  params: Promise<{ id: string }>;
}

// One database read per request, shared by the metadata and the page.
const loadView = cache((id: string) => loadChatView(id));

export async function generateMetadata({ params }: ChatPageProps): Promise<Metadata> {
  // Metadata renders beside the page: without a valid session it names no chat.
  if (!(await viewer())) return { title: 'skillchat' };
  const view = await loadView((await params).id);
  return { title: view ? `${view.chat.title} · skillchat` : 'Chat not found · skillchat' };
}

export default async function ChatPage({ params }: ChatPageProps) {
  const { id } = await params;
  const user = await pageUser(`/chat/${encodeURIComponent(id)}`);
  const view = await loadView(id);
  if (!view) notFound();
  const [chats, models] = await Promise.all([listChatSummaries(), modelMenu()]);
  return (
    <AppShell chats={chats} activeChatId={id} account={accountOf(user)}>
      <ChatView
        // A different chat is a different conversation: start its useChat state from scratch.
        key={id}
        chatId={id}
        isNew={false}
        initialTitle={view.chat.title}
        initialMessages={view.messages}
        initialActivations={view.activations}
        initialVersions={view.versions}
        models={models}
        initialModel={view.chat.model}
      />
    </AppShell>
  );
}
