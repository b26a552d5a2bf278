/**
 * POST /api/admin/skills/install: multipart (`file`: a .zip/.skill archive; `mode`) or JSON `{ url, name?, mode? }`
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

export const dynamic = 'force-dynamic';

// Next buffers a body for the proxy up to 10 MB and cuts the rest: a larger upload is refused whole instead.
const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

const modeSchema = z.enum(['install', 'preview', 'update']).default('install');
const urlBodySchema = z
  .object({ url: z.string().min(1).max(2000), name: z.string().min(1).max(200).optional(), mode: modeSchema })
  .strict();

async function readSource(request: Request): Promise<{ source: InstallSource; mode: InstallMode }> {
  const type = request.headers.get('content-type') ?? '';
  if (type.startsWith('multipart/form-data')) {
    if (Number(request.headers.get('content-length') ?? '0') > MAX_UPLOAD_BYTES) {
      throw new AppError('payload_too_large:install', `The upload is over ${MAX_UPLOAD_BYTES} bytes`);
    }
    const form = await request.formData().catch(() => {
      throw new AppError('bad_request:install', 'The upload is not valid multipart form data');
    });
    const file = form.get('file');
    if (!(file instanceof Blob)) throw new AppError('bad_request:install', 'Attach the archive as the `file` field');
    if (file.size > MAX_UPLOAD_BYTES) {
      throw new AppError('payload_too_large:install', `The upload is over ${MAX_UPLOAD_BYTES} bytes`);
    }
    const mode = modeSchema.safeParse(form.get('mode') ?? undefined);
    if (!mode.success) throw new AppError('bad_request:install', 'mode must be install, preview or update');
    return { source: { kind: 'archive-bytes', bytes: Buffer.from(await file.arrayBuffer()) }, mode: mode.data };
  }
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
