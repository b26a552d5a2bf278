import { Readable } from 'node:stream';
import { currentUserId } from '@/app/_lib/current-user';
import { getApp } from '@/server/app';
import { previewPage, previewPageCount } from '@/server/documents/file-view';
import { AppError } from '@/server/errors';
import { handle, json } from '@/server/http';
import { listVersions, openVersion } from '@/server/workspace/file-versions';
import { openWorkspaceFile } from '@/server/workspace/workspace';
import { existingChat, filePathFrom } from '../chat';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ id: string; path: string[] }> };

const SAFE_HEADERS = {
  'x-content-type-options': 'nosniff',
  // A file opened directly (HTML, SVG) must not run as this site's page.
  'content-security-policy': "sandbox; default-src 'none'",
  'cache-control': 'no-store',
};

/**
 * The bytes of `name` or `folder/name`, always as a download. `?preview=1&page=N` gives a PNG of a document's page
 * instead (the first without `page`), `?pages=1` `{ pages }`, how many there are (null: no preview). `?versions=1`
 * lists the versions the chat's runs wrote (`{ versions }`, oldest first), `?version=<id>` gives one's bytes.
 */
export const GET = handle(async (request: Request, { params }: Params) => {
  const id = await existingChat(request, params);
  const name = filePathFrom((await params).path);
  const { execution } = (await getApp()).config;
  const query = new URL(request.url).searchParams;
  const root = execution.workspace.dir;
  if (query.get('versions') === '1') return json({ versions: await listVersions(root, id, name) });
  const version = query.get('version');
  const file = version ? await openVersion(root, id, name, version) : await openWorkspaceFile(root, id, name);
  if (!file && version) throw new AppError('not_found:file', `No version "${version}" of "${name}" in this chat`);
  if (!file) throw new AppError('not_found:file', `File "${name}" does not exist in this chat`);
  if (query.get('pages') === '1' || query.get('preview') === '1') {
    if (version) {
      await file.handle.close();
      throw new AppError('bad_request:preview', 'Previews show the current version; download an earlier one');
    }
    await file.handle.close();
    const owner = await currentUserId(request);
    if (query.get('pages') === '1') return json({ pages: await previewPageCount(execution, id, name, owner) });
    const page = Number(query.get('page') ?? '1');
    if (!Number.isInteger(page) || page < 1 || page > 10_000) {
      throw new AppError('bad_request:preview', 'The page must be a whole number from 1');
    }
    const png = await previewPage(execution, id, name, page, owner);
    if (!png) throw new AppError('not_found:preview', `No preview of page ${page} of "${name}"`);
    return new Response(new Uint8Array(png), { headers: { ...SAFE_HEADERS, 'content-type': 'image/png' } });
  }
  const body = Readable.toWeb(file.handle.createReadStream()) as ReadableStream<Uint8Array>;
  const base = name.split('/').at(-1) ?? name;
  return new Response(body, {
    headers: {
      ...SAFE_HEADERS,
      'content-type': file.mediaType,
      'content-length': String(file.size),
      'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(base)}`,
    },
  });
});
