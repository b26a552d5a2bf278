/**
 * GET /.well-known/agent-skills/index.json and /.well-known/agent-skills/{name}/{path}: the skills the caller may
 * use as a discovery index (agent-skills-discovery-rfc v0.2.0; `server/skill-server/well-known.ts`) and its files,
 * byte for byte. On an exposed server: a personal access token, or a signed-in browser's session.
 */

import { callerOf, skillServer } from '@/app/_lib/skill-server';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';
import { servedSkills } from '@/server/skill-server/served';
import { wellKnownFile, wellKnownIndex } from '@/server/skill-server/well-known';

export const dynamic = 'force-dynamic';

export const GET = handle(async (request: Request, { params }: { params: Promise<{ path: string[] }> }) => {
  const { path } = await params;
  const { person } = await callerOf(request, { session: true });
  const { deps } = await skillServer();
  if (path.length === 1 && path[0] === 'index.json') {
    return json(wellKnownIndex(await servedSkills(deps, person.id)), { headers: { vary: 'authorization, cookie' } });
  }
  const [name, ...rest] = path;
  const file = name && rest.length > 0 ? await wellKnownFile(deps, person.id, name, rest.join('/')) : null;
  if (!file) throw new AppError('not_found:skill_file', 'No such skill file here');
  return new Response(new Uint8Array(file.data), {
    headers: {
      'content-type': file.contentType,
      'content-length': String(file.data.length),
      'cache-control': 'private, no-cache',
      etag: `"${file.digest}"`,
      vary: 'authorization, cookie',
      // Skill files are untrusted: never rendered as a page of this origin.
      'content-security-policy': 'sandbox',
    },
  });
});

export const HEAD = GET;
