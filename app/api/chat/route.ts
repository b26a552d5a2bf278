import { requireUser } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { parseChatRequest, readJsonBody } from '@/server/chat/request';
import { runChatTurn, turnDeps } from '@/server/chat/turn';
import { handle } from '@/server/http';
import { getExposurePolicy } from '@/server/security/runtime';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request: Request) => {
  const body = parseChatRequest(await readJsonBody(request));
  // One session lookup: the person's store and their own skill switches (server/chat/turn/deps.ts).
  const [app, user] = await Promise.all([getApp(), requireUser(request)]);
  const asker = { exposed: getExposurePolicy().exposed, email: user.email };
  return runChatTurn(body, await turnDeps(app, user.id, body.chatId, asker));
});
