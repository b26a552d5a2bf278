/** GET /api/me/secrets: the personal secrets the operator configured, each set or not by this person (never a value). */
import { currentUserId } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';
import { personalSecretViews } from '@/server/secrets/manage';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request: Request) => {
  const userId = await currentUserId(request);
  const app = await getApp();
  return json({ secrets: await personalSecretViews(app.config.egress.secrets, app.secrets, userId) });
});
