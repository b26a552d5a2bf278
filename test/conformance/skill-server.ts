/**
 * skillchat's `POST /mcp` for the conformance suite's server scenarios: the real handler
 * (`createSkillServerHandler`) behind the steps a request takes in the app: the proxy's access check
 * (`checkRequest`: the Host allowlist, Origin; proxy.ts), then the route's (`skillServerCaller` on an exposed server,
 * so a personal access token decides the person; `personAuthInfo`; errors as `handle` answers them;
 * app/mcp/route.ts). Config, access, database and publisher are real; node:http on 127.0.0.1. The skills are `skills/` here: the suite's directory
 * scenario walks the first skill listed, so the first by name (`brand-voice`) has a subfolder.
 *
 * The suite sends no headers of its own, so the token is added to each request here, as a configured client
 * would send it; a request that already has an Authorization header keeps it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAccessResolver } from '../../server/access/resolver';
import { createPersonalToken } from '../../server/auth/personal-tokens';
import { loadConfig } from '../../server/config';
import { closeDatabase, openDb, sqliteDatabase } from '../../server/db';
import { users } from '../../server/db/schema-auth';
import { handle } from '../../server/http';
import { checkRequest } from '../../server/security/check';
import { buildExposurePolicy } from '../../server/security/exposure';
import { skillServerCaller } from '../../server/skill-server/caller';
import { createSkillServerHandler, personAuthInfo } from '../../server/skill-server/mcp';
import { createPublisher } from '../../server/skill-server/publication';
import { createSkillRegistry } from '../../server/skills/registry';
import { serveOverHttp, type TestHttpServer } from '../mcp/servers';

export const CONFORMANCE_SKILLS = path.join(import.meta.dirname, 'skills');

export interface ConformanceSkillServer extends TestHttpServer {
  /** The skill names served, in the order `skills/list` gives them. */
  skills: string[];
}

export async function startConformanceSkillServer(): Promise<ConformanceSkillServer> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-conformance-'));
  const config = loadConfig({
    appDir: tmp,
    env: { SKILLCHAT_DB: path.join(tmp, 'db.sqlite'), SKILLCHAT_SKILL_ROOTS: CONFORMANCE_SKILLS },
    home: path.join(tmp, 'home'),
  });
  const db = sqliteDatabase(openDb(config.databasePath));
  const now = new Date();
  await db.db
    .insert(users as unknown as typeof db.t.users)
    .values({ id: 'suite', name: 'suite', email: 'suite@example.com', role: 'member', createdAt: now, updatedAt: now });
  const { token } = await createPersonalToken(db, 'suite', 'conformance suite');
  const handler = createSkillServerHandler({
    registry: createSkillRegistry(config),
    access: createAccessResolver(config),
    db,
    publisher: createPublisher(),
    warn: () => {},
  });
  // The Host allowlist of a server on 127.0.0.1 (loopback names only), as exposed: a token is required.
  const policy = {
    ...buildExposurePolicy({ env: { __NEXT_PRIVATE_ORIGIN: 'http://127.0.0.1:3000' }, allowedHosts: [] }),
    exposed: true,
  };
  // app/mcp/route.ts behind proxy.ts; GET and DELETE are 405 there (the route exports POST only).
  const route = handle(async (request: Request) => {
    const { pathname } = new URL(request.url);
    const decision = checkRequest(
      {
        method: request.method,
        pathname,
        host: request.headers.get('host'),
        origin: request.headers.get('origin'),
        cookie: request.headers.get('cookie'),
      },
      policy,
    );
    if (decision.action !== 'allow') {
      return Response.json(
        { error: decision.action === 'deny' ? decision.reason : 'sign in', code: 'denied' },
        { status: decision.action === 'deny' ? decision.status : 401 },
      );
    }
    if (request.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'POST' } });
    const { person, token: sent } = await skillServerCaller({ exposed: true, db }, request.headers);
    return handler.fetch(request, { authInfo: personAuthInfo(person.id, sent) });
  });
  const server = await serveOverHttp({
    fetch: (request) => {
      if (request.headers.has('authorization')) return route(request);
      const headers = new Headers(request.headers);
      headers.set('authorization', `Bearer ${token}`);
      return route(new Request(request, { headers }));
    },
  });
  const skills = fs
    .readdirSync(CONFORMANCE_SKILLS)
    .filter((name) => fs.existsSync(path.join(CONFORMANCE_SKILLS, name, 'SKILL.md')))
    .sort();
  return {
    ...server,
    skills,
    async close() {
      await server.close();
      await handler.close();
      await closeDatabase(db);
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}
