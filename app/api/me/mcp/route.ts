/** GET /api/me/mcp: the MCP servers the person may switch, each with its status and whether they switched it off. */

import { currentUserId } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { handle, json } from '@/server/http';
import { listMcpPrefs } from '@/server/mcp/personal';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request: Request) => {
  const userId = await currentUserId(request);
  return json({ servers: await listMcpPrefs(await getApp(), userId) });
});
