import { getApp } from '@/server/app';
import { parseChatRequest, readJsonBody } from '@/server/chat/request';
import { runChatTurn } from '@/server/chat/turn';
import { handle } from '@/server/http';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request: Request) => {
  const body = parseChatRequest(await readJsonBody(request));
  const app = getApp();
  const { registry } = app;
  const [{ skills }, matcher] = await Promise.all([registry.current(), registry.matcher()]);
  return runChatTurn(body, {
    store: app.store,
    config: app.config,
    skills: { skills, matcher, usage: () => app.store.usageCounts() },
    model: app.model,
    access: app.access,
  });
});
