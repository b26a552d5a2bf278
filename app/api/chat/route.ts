import { personalAccess } from '@/server/access/personal';
import { getApp } from '@/server/app';
import { currentUserId } from '@/server/auth/current-user';
import { parseChatRequest, readJsonBody } from '@/server/chat/request';
import { runChatTurn } from '@/server/chat/turn';
import { handle } from '@/server/http';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request: Request) => {
  const body = parseChatRequest(await readJsonBody(request));
  // One session lookup: the person's store and their own skill switches.
  const [app, userId] = await Promise.all([getApp(), currentUserId(request)]);
  const store = app.store.forUser(userId);
  const { registry } = app;
  const [{ skills }, matcher] = await Promise.all([registry.current(), registry.matcher()]);
  // The chat's pick, or the default; a model that is gone answers as the offline model, with a note.
  const { choice, note } = await app.models.choose((await store.getChat(body.chatId))?.model);
  return runChatTurn(body, {
    store,
    config: app.config,
    skills: { skills, matcher, usage: await store.usageCounts() },
    model: note ? { ...choice, note } : choice,
    access: app.access,
    personal: await personalAccess(app.db, userId),
  });
});
