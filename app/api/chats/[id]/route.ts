import { z } from 'zod';
import { storeFor } from '@/app/_lib/store';
import { getApp } from '@/server/app';
import { chatIdFrom, readJsonBody } from '@/server/chat/request';
import { stopChat } from '@/server/chat/turn/stop';
import { AppError } from '@/server/errors';
import { handle, json, notFound } from '@/server/http';
import { deleteWorkspace } from '@/server/workspace/workspace';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ id: string }> };

export const GET = handle(async (request: Request, { params }: Params) => {
  const id = await chatIdFrom(params);
  const view = await (await storeFor(request)).loadChatView(id);
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
  const id = await chatIdFrom(params);
  const parsed = patchSchema.safeParse(await readJsonBody(request));
  if (!parsed.success) {
    throw new AppError(
      'bad_request:chat',
      'Invalid change: send { title } (1-200 characters) and/or { model } (an id from /api/models, or null)',
    );
  }
  const { title, model } = parsed.data;
  const app = await getApp();
  const store = await storeFor(request);
  if (model && !(await app.models.find(model))) {
    throw new AppError('bad_request:model', `Unknown model "${model.slice(0, 100)}": pick one listed by /api/models`);
  }
  if (!(await store.getChat(id))) throw notFound('chat', id);
  if (model !== undefined) await store.setChatModel(id, model);
  const chat = title === undefined ? await store.getChat(id) : await store.renameChat(id, title);
  if (!chat) throw notFound('chat', id);
  return json({ chat });
});

const FILES_LEFT =
  'The chat was deleted, but not all of its files could be removed yet: they are retried at the next deletion';

export const DELETE = handle(async (request: Request, { params }: Params) => {
  const id = await chatIdFrom(params);
  const store = await storeFor(request);
  // Another person's chat is a 404 before anything is stopped.
  if (!(await store.getChat(id))) throw notFound('chat', id);
  // The chat's turn and its scripts (they run under the turn's signal) are stopped and stored first, here or on the
  // instance running it; then the chat and its workspace go. The script-run log keeps the runs, without the chat.
  await stopChat(id, { turns: (await getApp()).turns, leases: store.leases, wait: true });
  if (!(await store.deleteChat(id))) throw notFound('chat', id);
  if (!(await deleteWorkspace((await getApp()).config.execution.workspace.dir, id))) {
    return json({ error: FILES_LEFT, code: 'files_left:chat' }, { status: 202 });
  }
  return new Response(null, { status: 204 });
});
