/**
 * POST /mcp: skillchat as an MCP server for the skills its person may use (the skills extension, SEP-2640;
 * `server/skill-server/mcp.ts`). Stateless Streamable HTTP: GET and DELETE are 405. On an exposed server the caller
 * sends a personal access token (`Authorization: Bearer`); without one, 401 JSON.
 */

import { callerOf, skillServer } from '@/app/_lib/skill-server';
import { handle } from '@/server/http';
import { personAuthInfo } from '@/server/skill-server/mcp';

export const dynamic = 'force-dynamic';

export const POST = handle(async (request: Request) => {
  const { person, token } = await callerOf(request, { session: false });
  const { mcp } = await skillServer();
  return mcp.fetch(request, { authInfo: personAuthInfo(person.id, token) });
});
