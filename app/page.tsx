import { listChatSummaries, modelMenu } from '@/app/_lib/queries';
import { AppShell } from '@/components/app-shell';
import { NewChat } from '@/components/chat/new-chat';
import { accountOf, pageUser } from './_lib/page-user';

// Chats live in the database: render on every request.
export const dynamic = 'force-dynamic';

/** `/` is the new-chat screen; earlier chats are one click away in the sidebar. */
export default async function Home() {
  const user = await pageUser('/');
  const [chats, models] = await Promise.all([listChatSummaries(), modelMenu()]);
  return (
    <AppShell chats={chats} activeChatId={null} account={accountOf(user)}>
      <NewChat models={models} />
    </AppShell>
  );
}
