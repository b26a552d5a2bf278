/**
 * An install's source as a browser sends it, multipart: `file` (a .zip/.skill archive) or `files` (a folder chosen
 * with `<input webkitdirectory>`: every file, each with its relative path as a `paths` entry in the same order),
 * and `mode`. The admin's install route and a person's own (/settings) read it here, so both take the same shapes
 * under the same cap before the one install path checks the contents.
 */
import { z } from 'zod';
import { AppError } from '../errors';
import type { InstallSource, UploadedFile } from './install';

// Next buffers a body for the proxy up to 10 MB and cuts the rest: a larger upload is refused whole instead.
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

export const installModeSchema = z.enum(['install', 'preview', 'update']).default('install');
export type UploadMode = z.infer<typeof installModeSchema>;

function tooLarge(): AppError {
  return new AppError('payload_too_large:install', `The upload is over ${MAX_UPLOAD_BYTES} bytes`);
}

/** Refuses a body that says it is over the cap before it is read. */
export function checkUploadLength(request: Request): void {
  if (Number(request.headers.get('content-length') ?? '0') > MAX_UPLOAD_BYTES) throw tooLarge();
}

async function folderFiles(form: FormData): Promise<UploadedFile[]> {
  const blobs = form.getAll('files');
  const paths = form.getAll('paths');
  if (paths.length !== blobs.length || !paths.every((p) => typeof p === 'string')) {
    throw new AppError('bad_request:install', 'Send one `paths` entry (the relative path) for each of the `files`');
  }
  const files: UploadedFile[] = [];
  let total = 0;
  for (const [i, blob] of blobs.entries()) {
    if (!(blob instanceof Blob)) throw new AppError('bad_request:install', 'Each `files` entry must be a file');
    total += blob.size;
    if (total > MAX_UPLOAD_BYTES) throw tooLarge();
    files.push({ path: paths[i] as string, bytes: Buffer.from(await blob.arrayBuffer()) });
  }
  return files;
}

/** The source and mode of a multipart install request. */
export async function uploadedSource(request: Request): Promise<{ source: InstallSource; mode: UploadMode }> {
  checkUploadLength(request);
  const form = await request.formData().catch(() => {
    throw new AppError('bad_request:install', 'The upload is not valid multipart form data');
  });
  const mode = installModeSchema.safeParse(form.get('mode') ?? undefined);
  if (!mode.success) throw new AppError('bad_request:install', 'mode must be install, preview or update');
  if (form.has('files')) return { source: { kind: 'files', files: await folderFiles(form) }, mode: mode.data };
  const file = form.get('file');
  if (!(file instanceof Blob)) {
    throw new AppError('bad_request:install', 'Attach the archive as the `file` field, or a folder as `files`');
  }
  if (file.size > MAX_UPLOAD_BYTES) throw tooLarge();
  return { source: { kind: 'archive-bytes', bytes: Buffer.from(await file.arrayBuffer()) }, mode: mode.data };
}
