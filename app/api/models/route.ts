import { requireUser } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

/** The models a chat can pick: `{ models: [{ id, label, provider, contextWindow? }], defaultId }`. */
export const GET = handle(async (request: Request) => {
  await requireUser(request);
  const { models } = await getApp();
  return json({ models: await models.list(), defaultId: models.defaultId });
});
