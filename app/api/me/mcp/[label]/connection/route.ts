/**
 * POST /api/me/mcp/:label/connection `{ returnTo? }`: starts the signed-in person's sign-in to an MCP server that
 * signs each person in; answers `{ connected: false, authorizationUrl }` (the browser goes there) or
 * `{ connected: true }` when a stored refresh token still works. DELETE: the person ends their connection.
 */
import { z } from 'zod';
import { currentUserId } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { readJsonBody } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';
import { browserOrigin, disconnect, startConnect } from '@/server/mcp/connect';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ label: string }> };

const bodySchema = z.object({ returnTo: z.string().max(500).optional() }).strict();

export const POST = handle(async (request: Request, { params }: Params) => {
  const userId = await currentUserId(request);
  const { label } = await params;
  const parsed = bodySchema.safeParse(await readJsonBody(request));
  if (!parsed.success) throw new AppError('bad_request:mcp_connect', 'The body must be { "returnTo"?: "/path" }');
  const origin = browserOrigin(request);
  return json(
    await startConnect((await getApp()).mcpPeople, userId, label, { origin, returnTo: parsed.data.returnTo }),
  );
});

export const DELETE = handle(async (request: Request, { params }: Params) => {
  const userId = await currentUserId(request);
  const { label } = await params;
  return json(await disconnect((await getApp()).mcpPeople, userId, label));
});
