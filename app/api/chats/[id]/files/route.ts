import { currentUserId } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { readDocument, withTextStates } from '@/server/documents/extract';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';
import { safeFileName } from '@/server/workspace/file-names';
import { listWorkspace, saveUpload } from '@/server/workspace/workspace';
import { existingChat } from './chat';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ id: string }> };

export const GET = handle(async (request: Request, { params }: Params) => {
  const id = await existingChat(request, params);
  const { execution } = (await getApp()).config;
  return json({ files: await withTextStates(execution, id, await listWorkspace(execution.workspace.dir, id)) });
});

// Multipart framing around the file; the body cap is the file cap plus this.
const FORM_OVERHEAD = 64 * 1024;

export const POST = handle(async (request: Request, { params }: Params) => {
  const id = await existingChat(request, params);
  const { workspace } = (await getApp()).config.execution;
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > workspace.maxUploadBytes + FORM_OVERHEAD) {
    throw new AppError('payload_too_large:file', `The file is over the ${workspace.maxUploadBytes}-byte upload limit`);
  }
  if (!(request.headers.get('content-type') ?? '').startsWith('multipart/form-data')) {
    throw new AppError('unsupported_media_type:file', 'Send the file as multipart/form-data in the field "file"');
  }
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    throw new AppError('bad_request:file', 'The upload is not valid multipart/form-data');
  }
  const file = form.get('file');
  if (!(file instanceof File)) throw new AppError('bad_request:file', 'The upload has no file in the field "file"');
  const name = safeFileName(file.name) ?? 'file';
  const owner = await currentUserId(request);
  const saved = await saveUpload(workspace.dir, id, name, new Uint8Array(await file.arrayBuffer()), workspace, owner);
  if (!saved.ok) {
    throw new AppError(saved.code === 'too-many' ? 'conflict:files' : 'payload_too_large:file', saved.error);
  }
  const { name: stored, size, mediaType } = saved.file;
  // Read now, in the background: the turn that sends it finds the text kept, and the chip can say it was read.
  void readDocument((await getApp()).config.execution, id, stored).catch(() => {});
  return json({ file: { name: stored, size, mediaType } }, { status: 201 });
});
