/** GET/POST /api/me/tokens: the person's personal access tokens (for MCP clients and installers). */
import { z } from 'zod';
import { currentUserId } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { createPersonalToken, listTokens } from '@/server/auth/personal-tokens';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

const createSchema = z.object({ name: z.string() });

export const GET = handle(async (request: Request) => {
  const userId = await currentUserId(request);
  return json({ tokens: await listTokens((await getApp()).db, userId) });
});

/** 201 `{ token, created }`: the token itself is in this answer only. */
export const POST = handle(async (request: Request) => {
  const userId = await currentUserId(request);
  const body = createSchema.safeParse(await request.json().catch(() => null));
  if (!body.success) throw new AppError('bad_request:input', 'Send { "name": "..." }');
  return json(await createPersonalToken((await getApp()).db, userId, body.data.name), { status: 201 });
});
