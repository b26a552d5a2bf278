/**
 * POST /api/admin/skills/install: multipart (`file`: a .zip/.skill archive, or `files` + `paths`: a folder; `mode`,
 * server/install/upload.ts) or JSON `{ url, name?, mode? }`
 * (git, archive or index URL). `mode`: `install` (default; 409 when the name is taken), `preview` (what an update
 * would change, nothing applied), `update`. 201 `{ skill: { name, description }, ... }`, 200 for a preview, or a 4xx
 * `{ error, code, problems }` listing every reason.
 */
import { z } from 'zod';
import { requireAdmin } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { readJsonBody } from '@/server/chat/request';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';
import { type InstallMode, installErrorResponse, installForAdmin } from '@/server/install/admin';
import type { InstallSource } from '@/server/install/install';
import { InstallError } from '@/server/install/problems';
import { installModeSchema, uploadedSource } from '@/server/install/upload';

export const dynamic = 'force-dynamic';

const urlBodySchema = z
  .object({ url: z.string().min(1).max(2000), name: z.string().min(1).max(200).optional(), mode: installModeSchema })
  .strict();

async function readSource(request: Request): Promise<{ source: InstallSource; mode: InstallMode }> {
  const type = request.headers.get('content-type') ?? '';
  if (type.startsWith('multipart/form-data')) return uploadedSource(request);
  const parsed = urlBodySchema.safeParse(await readJsonBody(request));
  if (!parsed.success) {
    throw new AppError('bad_request:install', 'Send multipart `file`, or JSON { url, name?, mode? }');
  }
  const { url, name, mode } = parsed.data;
  return { source: { kind: 'url', url, ...(name ? { name } : {}) }, mode };
}

export const POST = handle(async (request: Request) => {
  await requireAdmin(request);
  const app = await getApp();
  const { source, mode } = await readSource(request);
  try {
    const result = await installForAdmin(app, source, mode);
    const { name, description, ...rest } = result;
    return json({ skill: { name, description }, ...rest }, { status: result.applied ? 201 : 200 });
  } catch (error) {
    if (error instanceof InstallError) return installErrorResponse(error, app);
    throw error;
  }
});
