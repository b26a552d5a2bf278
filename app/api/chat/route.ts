import { getApp } from '@/server/app';
import { currentUserId } from '@/server/auth/current-user';
import { parseChatRequest, readJsonBody } from '@/server/chat/request';
import { runChatTurn } from '@/server/chat/turn';
import { turnDeps } from '@/server/chat/turn-deps';
import { handle } from '@/server/http';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request: Request) => {
  const body = parseChatRequest(await readJsonBody(request));
  // One session lookup: the person's store and their own skill switches (server/chat/turn-deps.ts).
  const [app, userId] = await Promise.all([getApp(), currentUserId(request)]);
  return runChatTurn(body, await turnDeps(app, userId, body.chatId));
});
