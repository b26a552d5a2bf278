/**
 * The process's skill server: one publisher (its cache of digests) and one MCP handler, on `globalThis` like the
 * app itself, built from `getApp()` on first use. Route handlers call `skillServer()` and `skillServerCaller`.
 */
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { getApp } from '@/server/app';
import { getExposurePolicy } from '@/server/security/runtime';
import { type CallerContext, skillServerCaller } from '@/server/skill-server/caller';
import { createSkillServerHandler } from '@/server/skill-server/mcp';
import { createPublisher } from '@/server/skill-server/publication';
import type { SkillServerDeps } from '@/server/skill-server/served';
import { currentUser } from './current-user';

interface SkillServer {
  deps: SkillServerDeps;
  mcp: McpHttpHandler;
}

const g = globalThis as typeof globalThis & { __skillchatSkillServer?: Promise<SkillServer> };

export function skillServer(): Promise<SkillServer> {
  if (!g.__skillchatSkillServer) {
    const built = getApp().then((app) => {
      const deps: SkillServerDeps = {
        registry: app.registry,
        access: app.access,
        db: app.db,
        publisher: createPublisher(),
      };
      return { deps, mcp: createSkillServerHandler(deps) };
    });
    g.__skillchatSkillServer = built;
    // A failed start is not kept: the next request tries again (as `getApp()` does).
    built.catch(() => {
      if (g.__skillchatSkillServer === built) g.__skillchatSkillServer = undefined;
    });
  }
  return g.__skillchatSkillServer;
}

/** The person a skill-server request acts for (401 AppError without a credential on an exposed server). */
export async function callerOf(request: Request, options: { session: boolean }) {
  const { exposed } = getExposurePolicy();
  const ctx: CallerContext = {
    exposed,
    db: (await getApp()).db,
    ...(options.session ? { sessionUser: () => currentUser(request) } : {}),
  };
  return skillServerCaller(ctx, request.headers);
}
