import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { cache } from 'react';
import { listChatSummaries, loadChatPage, modelMenu } from '@/app/_lib/queries';
import { AppShell } from '@/components/app-shell';
import { ChatView } from '@/components/chat/chat-view';
import { accountOf, pageUser, viewer } from '../../_lib/page-user';

export const dynamic = 'force-dynamic';

interface ChatPageProps {
  params: Promise<{ id: string }>;
  /** `?message=<id>`: a search hit; the chat opens at that message. */
  searchParams: Promise<{ message?: string | string[] }>;
}

/** The search hit to open at, when the address names one that could be a message id. */
async function targetOf(searchParams: ChatPageProps['searchParams']): Promise<string | undefined> {
  const { message } = await searchParams;
  return typeof message === 'string' && message.length > 0 && message.length <= 100 ? message : undefined;
}

// One database read per request, shared by the metadata and the page. Only the newest page of a long
// chat (and a search hit's window) is rendered; the rest loads as the person scrolls up.
const loadView = cache((id: string, target: string | undefined) => loadChatPage(id, target));

export async function generateMetadata({ params, searchParams }: ChatPageProps): Promise<Metadata> {
  // Metadata renders beside the page: without a valid session it names no chat.
  if (!(await viewer())) return { title: 'skillchat' };
  const view = await loadView((await params).id, await targetOf(searchParams));
  return { title: view ? `${view.chat.title} · skillchat` : 'Chat not found · skillchat' };
}

export default async function ChatPage({ params, searchParams }: ChatPageProps) {
  const { id } = await params;
  const target = await targetOf(searchParams);
  const user = await pageUser(`/chat/${encodeURIComponent(id)}`);
  const view = await loadView(id, target);
  if (!view) notFound();
  const [chats, models] = await Promise.all([listChatSummaries(), modelMenu()]);
  return (
    <AppShell chats={chats} activeChatId={id} account={accountOf(user)}>
      <ChatView
        // A different chat (or the same one opened at another search hit) starts its useChat state from scratch.
        key={target ? `${id}#${target}` : id}
        chatId={id}
        isNew={false}
        initialTitle={view.chat.title}
        initialMessages={view.messages}
        initialEarlier={view.earlier}
        target={target}
        initialActivations={view.activations}
        initialVersions={view.versions}
        models={models}
        initialModel={view.chat.model}
      />
    </AppShell>
  );
}
