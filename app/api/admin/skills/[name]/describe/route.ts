/**
 * GET /api/admin/skills/:name/describe: the last description proposals, or null.
 * POST `{ prompts, runs, count? }`: the configured model proposes descriptions, each scored on the train queries and
 * reported on the validation ones; stored, never saved (Save is the editor's PUT of a proposal's `skillFile`).
 */
import { z } from 'zod';
import { requireAdmin } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { readJsonBody } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { MAX_PROPOSALS } from '@/server/evals/describe';
import { lastDescribe, runStoredDescribe } from '@/server/evals/describe-admin';
import { MAX_RUNS, typedPromptsSchema } from '@/server/evals/trigger';
import { newChatModel } from '@/server/evals/trigger-run';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

const bodySchema = z
  .object({
    prompts: typedPromptsSchema,
    runs: z.number().int().min(1).max(MAX_RUNS),
    count: z.number().int().min(1).max(MAX_PROPOSALS).optional(),
  })
  .strict();

export const GET = handle(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireAdmin(request);
  const { name } = await params;
  return json({ last: await lastDescribe(await getApp(), name) });
});

export const POST = handle(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireAdmin(request);
  const { name } = await params;
  const body = bodySchema.safeParse(await readJsonBody(request));
  if (!body.success) {
    throw new AppError(
      'bad_request:describe',
      `Send { "prompts": [{ "text": "…", "shouldTrigger": true }], "runs": 1-${MAX_RUNS}, "count": 1-${MAX_PROPOSALS} }`,
    );
  }
  const app = await getApp();
  const model = await newChatModel(app.models);
  const { prompts, runs, count } = body.data;
  return json(await runStoredDescribe({ ...app, model }, name, prompts, runs, count));
});
