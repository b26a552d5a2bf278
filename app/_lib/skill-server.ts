/**
 * The skill server's routes reach the app's one skill server (`getApp().skillServer()`: its publisher keeps the
 * digests, and `/mcp` and the well-known routes must share them) and ask who is calling.
 */
import { getApp, type SkillServer } from '@/server/app';
import { getExposurePolicy } from '@/server/security/exposure-policy';
import { type CallerContext, skillServerCaller } from '@/server/skill-server/caller';
import { currentUser } from './current-user';

export async function skillServer(): Promise<SkillServer> {
  return (await getApp()).skillServer();
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
