/**
 * GET /api/admin/skills/:name/output-evals: the stored output eval runs, newest first, and whether one is running.
 * POST `{ runs }`: starts the skill's output evals (202 with the run's id; the page polls GET). DELETE: stops them.
 */
import { z } from 'zod';
import { requireAdmin } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { readJsonBody } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { MAX_EVAL_RUNS } from '@/server/evals/output';
import { runningOutputEval, startOutputEval, stopOutputEval, storedOutputEvals } from '@/server/evals/output-admin';
import { handle, json } from '@/server/http';
import { getExposurePolicy } from '@/server/security/exposure-policy';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ runs: z.number().int().min(1).max(MAX_EVAL_RUNS) }).strict();
type Params = { params: Promise<{ name: string }> };

export const GET = handle(async (request: Request, { params }: Params) => {
  const user = await requireAdmin(request);
  const { name } = await params;
  return json({
    runs: await storedOutputEvals(await getApp(), name),
    running: runningOutputEval(await getApp(), user.id),
  });
});

export const POST = handle(async (request: Request, { params }: Params) => {
  const user = await requireAdmin(request);
  const { name } = await params;
  const body = bodySchema.safeParse(await readJsonBody(request));
  if (!body.success) throw new AppError('bad_request:evals', `Send { "runs": 1-${MAX_EVAL_RUNS} }`);
  const asker = { exposed: getExposurePolicy().exposed, email: user.email };
  const started = await startOutputEval(await getApp(), name, { userId: user.id, runs: body.data.runs, asker });
  return json({ id: started.id }, { status: 202 });
});

export const DELETE = handle(async (request: Request) => {
  const user = await requireAdmin(request);
  if (!stopOutputEval(await getApp(), user.id))
    throw new AppError('not_found:evals', 'No output evals of yours are running');
  return json({ stopped: true });
});
