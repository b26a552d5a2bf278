/**
 * GET /api/admin/skills/:name/trigger-check: the stored trigger evals, newest first.
 * POST `{ prompts: [{ text, shouldTrigger }], runs }`: runs the skill's carried queries (evals/trigger-queries.json)
 * and the typed ones against the configured model and the matcher, stores the result.
 */
import { z } from 'zod';
import { requireAdmin } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { readJsonBody } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { MAX_PROMPTS, MAX_RUNS, typedPromptsSchema } from '@/server/evals/trigger';
import { runStoredTriggerCheck, storedTriggerChecks } from '@/server/evals/trigger-admin';
import { newChatModel } from '@/server/evals/trigger-run';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

const bodySchema = z
  .object({
    prompts: typedPromptsSchema,
    runs: z.number().int().min(1).max(MAX_RUNS),
  })
  .strict();

export const GET = handle(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireAdmin(request);
  const { name } = await params;
  return json({ checks: await storedTriggerChecks(await getApp(), name) });
});

export const POST = handle(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireAdmin(request);
  const { name } = await params;
  const body = bodySchema.safeParse(await readJsonBody(request));
  if (!body.success) {
    throw new AppError(
      'bad_request:trigger-check',
      `Send { "prompts": [{ "text": "…", "shouldTrigger": true }], "runs": 1-${MAX_RUNS} } with at most ${MAX_PROMPTS} prompts`,
    );
  }
  // Run against the model a new chat would get (the default of the model registry).
  const app = await getApp();
  const model = await newChatModel(app.models);
  return json(await runStoredTriggerCheck({ ...app, model }, name, body.data.prompts, body.data.runs));
});
