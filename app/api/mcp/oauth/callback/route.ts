/**
 * GET /api/mcp/oauth/callback?code&state[&iss]: where an MCP server's authorization server sends the person back.
 * The state must be the one stored for the signed-in person and that server; the SDK redeems the code. Redirects to
 * the page the sign-in started from, with `mcp_connected` or `mcp_error`.
 */
import { currentUserId } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { handle } from '@/server/http';
import { finishConnect } from '@/server/mcp/connect';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request: Request) => {
  const userId = await currentUserId(request);
  const url = new URL(request.url);
  const location = await finishConnect((await getApp()).mcpPeople, userId, url);
  return new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store' } });
});
