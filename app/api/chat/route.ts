import { getApp } from '@/server/app';
import { parseChatRequest, readJsonBody } from '@/server/chat/request';
import { runChatTurn } from '@/server/chat/turn';
import { handle } from '@/server/http';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request: Request) => {
  const body = parseChatRequest(await readJsonBody(request));
  const app = getApp();
  const { skills } = await app.registry.current();
  return runChatTurn(body, { store: app.store, config: app.config, skills, model: app.model, policy: app.policy });
});
