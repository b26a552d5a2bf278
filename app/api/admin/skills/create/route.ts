/** POST /api/admin/skills/create `{ name, description? }`: a new skill from the template, in the install root. */
import { z } from 'zod';
import { requireAdmin } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { createSkill } from '@/server/authoring/authoring';
import { readJsonBody } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ name: z.string().max(200), description: z.string().max(1024).optional() }).strict();

export const POST = handle(async (request: Request) => {
  await requireAdmin(request);
  const body = bodySchema.safeParse(await readJsonBody(request));
  if (!body.success) throw new AppError('bad_request:skill-name', 'Send { "name": "my-skill", "description": "…" }');
  const name = await createSkill(await getApp(), body.data.name, body.data.description ?? '');
  return json({ name }, { status: 201 });
});
