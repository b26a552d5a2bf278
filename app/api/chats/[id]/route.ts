import { z } from 'zod';
import { getApp } from '@/server/app';
import { requireUser } from '@/server/auth/current-user';
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

export const GET = handle(async (request: Request, { params }: Params) => {
  const _user = await requireUser(request); // whose chats: the per-person queries take _user.id
  const id = await chatId(params);
  const view = getApp().store.loadChatView(id);
  if (!view) throw notFound('chat', id);
  return json(view);
});

const patchSchema = z
  .object({
    title: z.string().trim().min(1).max(200).optional(),
    /** `provider:model` from `GET /api/models`; null: back to the app's default. */
    model: z.string().min(1).max(300).nullable().optional(),
  })
  .strict()
  .refine((p) => p.title !== undefined || p.model !== undefined);

/** Renames (`{ title }`) and/or picks the chat's model (`{ model }`). */
export const PATCH = handle(async (request: Request, { params }: Params) => {
  const _user = await requireUser(request); // whose chats: the per-person queries take _user.id
  const id = await chatId(params);
  const parsed = patchSchema.safeParse(await readJsonBody(request));
  if (!parsed.success) {
    throw new AppError(
      'bad_request:chat',
      'Invalid change: send { title } (1-200 characters) and/or { model } (an id from /api/models, or null)',
    );
  }
  const { title, model } = parsed.data;
  const app = getApp();
  if (model && !(await app.models.find(model))) {
    throw new AppError('bad_request:model', `Unknown model "${model.slice(0, 100)}": pick one listed by /api/models`);
  }
  if (!app.store.getChat(id)) throw notFound('chat', id);
  if (model !== undefined) app.store.setChatModel(id, model);
  const chat = title === undefined ? app.store.getChat(id) : app.store.renameChat(id, title);
  if (!chat) throw notFound('chat', id);
  return json({ chat });
});

export const DELETE = handle(async (request: Request, { params }: Params) => {
  const _user = await requireUser(request); // whose chats: the per-person queries take _user.id
  const id = await chatId(params);
  // The chat's turn and its scripts (they run under the turn's signal) are stopped and stored first; then the chat
  // and its workspace go. The script-run log keeps the runs, without the chat.
  await stopTurnAndWait(id);
  if (!getApp().store.deleteChat(id)) throw notFound('chat', id);
  await deleteWorkspace(getApp().config.scripts.workspace.dir, id);
  return new Response(null, { status: 204 });
});
