import { getApp } from '@/server/app';
import { requireUser } from '@/server/auth/current-user';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

/** The models a chat can pick: `{ models: [{ id, label, provider, contextWindow? }], defaultId }`. */
export const GET = handle(async (request: Request) => {
  await requireUser(request);
  const { models } = await getApp();
  return json({ models: await models.list(), defaultId: models.defaultId });
});
