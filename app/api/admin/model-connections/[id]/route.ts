/** PATCH /api/admin/model-connections/:id (the add form's fields; no `apiKey` keeps the key) and DELETE. Admins only. */
import { requireAdmin } from '@/app/_lib/current-user';
import { removeConnection, updateConnection } from '@/server/admin/models';
import { getApp } from '@/server/app';
import { readJsonBody } from '@/server/chat/request';
import { handle, json, notFound } from '@/server/http';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ id: string }> };

export const PATCH = handle(async (request: Request, { params }: Params) => {
  await requireAdmin(request);
  const { id } = await params;
  return json({ connection: await updateConnection(await getApp(), id, await readJsonBody(request)) });
});

export const DELETE = handle(async (request: Request, { params }: Params) => {
  await requireAdmin(request);
  const { id } = await params;
  if (!(await removeConnection(await getApp(), id))) throw notFound('model connection', id);
  return json({ id, removed: true });
});
