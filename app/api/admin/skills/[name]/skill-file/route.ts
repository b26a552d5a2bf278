/**
 * GET /api/admin/skills/:name/skill-file: the SKILL.md text, its check, and whether it may be edited here.
 * PUT `{ text }`: saves it atomically (only in a writable root, only when it still loads), then rescans.
 */
import fs from 'node:fs';
import { z } from 'zod';
import { requireAdmin } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { checkDraft, saveSkillFile, writableRootOf } from '@/server/authoring/authoring';
import { readJsonBody } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ text: z.string() }).strict();

export const GET = handle(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireAdmin(request);
  const { name } = await params;
  const app = await getApp();
  const skill = await app.registry.get(name);
  if (!skill) throw new AppError('not_found:skill', `Skill "${name}" not found`);
  const text = await fs.promises.readFile(skill.file, 'utf8');
  const folder = skill.dir.split(/[\\/]/).at(-1) ?? skill.name;
  return json({
    name: skill.name,
    text,
    writable: writableRootOf(app.config, skill.dir) !== null,
    check: await checkDraft(text, folder, app.config.limits),
  });
});

export const PUT = handle(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireAdmin(request);
  const { name } = await params;
  const app = await getApp();
  const body = bodySchema.safeParse(await readJsonBody(request, app.config.limits.maxSkillFileBytes * 2 + 1024));
  if (!body.success) throw new AppError('bad_request:draft', 'Send { "text": "<the SKILL.md text>" }');
  return json(await saveSkillFile(app, name, body.data.text));
});
