import { getApp } from '@/server/app';
import { requireUser } from '@/server/auth/current-user';
import { parseChatRequest, readJsonBody } from '@/server/chat/request';
import { runChatTurn } from '@/server/chat/turn';
import { handle } from '@/server/http';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request: Request) => {
  const _user = await requireUser(request); // whose chats: the per-person queries take _user.id
  const body = parseChatRequest(await readJsonBody(request));
  const app = getApp();
  const { registry } = app;
  const [{ skills }, matcher] = await Promise.all([registry.current(), registry.matcher()]);
  // The chat's pick, or the default; a model that is gone answers as the offline model, with a note.
  const { choice, note } = await app.models.choose(app.store.getChat(body.chatId)?.model);
  return runChatTurn(body, {
    store: app.store,
    config: app.config,
    skills: { skills, matcher, usage: () => app.store.usageCounts() },
    model: note ? { ...choice, note } : choice,
    access: app.access,
  });
});
