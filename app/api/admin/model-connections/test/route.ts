/**
 * POST /api/admin/model-connections/test `{ kind, baseUrl?, apiKey?, id? }`: the endpoint's model list,
 * `{ ok: true, models }`, or `{ ok: false, problem }` (a sentence without the key). Admins only.
 */
import { requireAdmin } from '@/app/_lib/current-user';
import { testConnection } from '@/server/admin/models';
import { getApp } from '@/server/app';
import { readJsonBody } from '@/server/chat/request';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request: Request) => {
  await requireAdmin(request);
  return json(await testConnection(await getApp(), await readJsonBody(request)));
});
