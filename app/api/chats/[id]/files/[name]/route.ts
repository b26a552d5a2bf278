import { Readable } from 'node:stream';
import { getApp } from '@/server/app';
import { renderPreview } from '@/server/documents/preview';
import { AppError } from '@/server/errors';
import { handle } from '@/server/http';
import { isSafeFileName } from '@/server/workspace/file-names';
import { openWorkspaceFile } from '@/server/workspace/workspace';
import { existingChat } from '../chat';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ id: string; name: string }> };

const SAFE_HEADERS = {
  'x-content-type-options': 'nosniff',
  // A file opened directly (HTML, SVG) must not run as this site's page.
  'content-security-policy': "sandbox; default-src 'none'",
  'cache-control': 'no-store',
};

/** The bytes, always as a download; `?preview=1` gives a PNG of a PDF's first page instead. */
export const GET = handle(async (request: Request, { params }: Params) => {
  const id = await existingChat(request, params);
  const { name } = await params;
  if (!isSafeFileName(name)) throw new AppError('bad_request:file', 'Invalid file name');
  const { execution } = (await getApp()).config;
  const dir = execution.workspace.dir;
  if (new URL(request.url).searchParams.get('preview') === '1') {
    const png = await renderPreview(execution, id, name);
    if (!png) throw new AppError('not_found:preview', `No preview for "${name}"`);
    return new Response(new Uint8Array(png), { headers: { ...SAFE_HEADERS, 'content-type': 'image/png' } });
  }
  const file = await openWorkspaceFile(dir, id, name);
  if (!file) throw new AppError('not_found:file', `File "${name}" does not exist in this chat`);
  const body = Readable.toWeb(file.handle.createReadStream()) as ReadableStream<Uint8Array>;
  return new Response(body, {
    headers: {
      ...SAFE_HEADERS,
      'content-type': file.mediaType,
      'content-length': String(file.size),
      'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(name)}`,
    },
  });
});
