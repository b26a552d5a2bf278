/**
 * GET /api/admin/model-connections: `{ models, connections }` (every model with where it came from; the connections
 * added on /admin, keys never included). POST `{ kind, name?, baseUrl?, apiKey?, models? }` adds one. Admins only.
 */
import { requireAdmin } from '@/app/_lib/current-user';
import { addConnection, loadAdminModels } from '@/server/admin/models';
import { getApp } from '@/server/app';
import { readJsonBody } from '@/server/chat/request';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request: Request) => {
  await requireAdmin(request);
  return json(await loadAdminModels(await getApp()));
});

export const POST = handle(async (request: Request) => {
  await requireAdmin(request);
  return json({ connection: await addConnection(await getApp(), await readJsonBody(request)) }, { status: 201 });
});
