/** PUT /api/me/secrets/:name `{ value }`: sets (or replaces) the person's own value of a personal secret. DELETE clears it. */
import { z } from 'zod';
import { currentUserId } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { readJsonBody } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';
import { clearSecretValue, setSecretValue } from '@/server/secrets/manage';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ value: z.string() }).strict();
type Params = { params: Promise<{ name: string }> };

export const PUT = handle(async (request: Request, { params }: Params) => {
  const userId = await currentUserId(request);
  const body = bodySchema.safeParse(await readJsonBody(request));
  if (!body.success) throw new AppError('bad_request:secret', 'Send { "value": "..." }');
  const { name } = await params;
  const app = await getApp();
  await setSecretValue(app.config.egress.secrets, app.secrets, userId, name, body.data.value);
  return json({ name, set: true });
});

export const DELETE = handle(async (request: Request, { params }: Params) => {
  const userId = await currentUserId(request);
  const { name } = await params;
  const app = await getApp();
  return json({ name, cleared: await clearSecretValue(app.config.egress.secrets, app.secrets, userId, name) });
});
