/** PUT /api/me/mcp/:label `{ disabled }`: switches an MCP server's tools off (or back on) for the person asking. */
import { z } from 'zod';
import { currentUserId } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { readJsonBody } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';
import { setMcpPref } from '@/server/mcp/personal';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ disabled: z.boolean() }).strict();

export const PUT = handle(async (request: Request, { params }: { params: Promise<{ label: string }> }) => {
  const userId = await currentUserId(request);
  const { label } = await params;
  const parsed = bodySchema.safeParse(await readJsonBody(request));
  if (!parsed.success) throw new AppError('bad_request:mcp_pref', 'The body must be { "disabled": true | false }');
  return json(await setMcpPref(await getApp(), userId, label, parsed.data.disabled));
});
