/**
 * GET /api/admin/skills/:name/files: the skill's files; `?path=rel`: one text file (415 for a binary one).
 * PUT `?path=rel` `{ text }`: writes that text file atomically (only in a writable root), creating folders as
 * needed, then rescans; answers with the hidden-text warnings of what was saved.
 */
import { z } from 'zod';
import { requireAdmin } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { listEditableFiles, readTextFile, saveTextFile } from '@/server/authoring/files';
import { readJsonBody } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';

export const dynamic = 'force-dynamic';

const bodySchema = z.object({ text: z.string() }).strict();

export const GET = handle(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireAdmin(request);
  const { name } = await params;
  const rel = new URL(request.url).searchParams.get('path');
  const app = await getApp();
  if (rel === null) return json({ files: await listEditableFiles(app, name) });
  return json(await readTextFile(app, name, rel));
});

export const PUT = handle(async (request: Request, { params }: { params: Promise<{ name: string }> }) => {
  await requireAdmin(request);
  const { name } = await params;
  const rel = new URL(request.url).searchParams.get('path');
  if (rel === null) throw new AppError('bad_request:file-path', 'Give the file as ?path=<relative path>');
  const app = await getApp();
  const body = bodySchema.safeParse(await readJsonBody(request, app.config.limits.maxResourceBytes * 2 + 1024));
  if (!body.success) throw new AppError('bad_request:file', 'Send { "text": "<the file text>" }');
  return json(await saveTextFile(app, name, rel, body.data.text));
});
