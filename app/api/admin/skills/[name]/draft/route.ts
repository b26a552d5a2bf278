/** POST /api/admin/skills/:name/draft `{ text }`: the editor's live check of a draft SKILL.md; nothing is written. */
import { z } from 'zod';
import { requireAdmin } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { checkDraft } from '@/server/authoring/authoring';
import { readJsonBody } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ text: z.string() }).strict();

export const POST = handle(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireAdmin(request);
  const { name } = await params;
  const app = await getApp();
  const limit = app.config.limits.maxSkillFileBytes;
  const body = bodySchema.safeParse(await readJsonBody(request, limit * 2 + 1024));
  if (!body.success) throw new AppError('bad_request:draft', 'Send { "text": "<the SKILL.md text>" }');
  if (Buffer.byteLength(body.data.text) > limit) {
    throw new AppError('payload_too_large:authoring', `SKILL.md may be at most ${limit} bytes`);
  }
  const skill = await app.registry.get(name);
  // The folder name matters (the name must match it); a skill not loaded yet is checked under its own name.
  const folder = skill ? (skill.dir.split(/[\\/]/).at(-1) ?? name) : name;
  if (!/^[^\\/.][^\\/]*$/.test(folder)) throw new AppError('bad_request:skill-name', 'Invalid skill name');
  return json(await checkDraft(body.data.text, folder, app.config.limits));
});
