/** DELETE /api/admin/mcp/:label/connections/:userId: an admin revokes a person's connection to an MCP server. */
import { requireAdmin } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';
import { disconnect } from '@/server/mcp/connect';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ label: string; userId: string }> };

export const DELETE = handle(async (request: Request, { params }: Params) => {
  await requireAdmin(request);
  const { label, userId } = await params;
  return json({ ...(await disconnect((await getApp()).mcpPeople, userId, label)), userId });
});
