import { z } from 'zod';
import { getApp } from '@/server/app';
import { stopTurnAndWait } from '@/server/chat/active-turns';
import { chatIdSchema, readJsonBody } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { handle, json, notFound } from '@/server/http';
import { deleteWorkspace } from '@/server/workspace/workspace';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ id: string }> };

async function chatId(params: Params['params']): Promise<string> {
  const { id } = await params;
  const parsed = chatIdSchema.safeParse(id);
  if (!parsed.success) throw new AppError('bad_request:chat', `Invalid chat id: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

export const GET = handle(async (_request: Request, { params }: Params) => {
  const id = await chatId(params);
  const view = getApp().store.loadChatView(id);
  if (!view) throw notFound('chat', id);
  return json(view);
});

const renameSchema = z.object({ title: z.string().trim().min(1).max(200) }).strict();

export const PATCH = handle(async (request: Request, { params }: Params) => {
  const id = await chatId(params);
  const parsed = renameSchema.safeParse(await readJsonBody(request));
  if (!parsed.success) throw new AppError('bad_request:chat', 'Invalid rename: title must be 1-200 characters');
  const chat = getApp().store.renameChat(id, parsed.data.title);
  if (!chat) throw notFound('chat', id);
  return json({ chat });
});

export const DELETE = handle(async (_request: Request, { params }: Params) => {
  const id = await chatId(params);
  // The chat's turn and its scripts (they run under the turn's signal) are stopped and stored first; then the chat
  // and its workspace go. The script-run log keeps the runs, without the chat.
  await stopTurnAndWait(id);
  if (!getApp().store.deleteChat(id)) throw notFound('chat', id);
  await deleteWorkspace(getApp().config.scripts.workspace.dir, id);
  return new Response(null, { status: 204 });
});
