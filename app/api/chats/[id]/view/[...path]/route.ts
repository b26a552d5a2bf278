import { Readable } from 'node:stream';
import { getApp } from '@/server/app';
import { isLiveHtml } from '@/server/documents/file-view';
import { AppError } from '@/server/errors';
import { handle } from '@/server/http';
import { LIVE_HTML_CSP } from '@/server/security/headers';
import { openWorkspaceFile } from '@/server/workspace/workspace';
import { existingChat, filePathFrom } from '../../files/chat';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ id: string; path: string[] }> };

/** A page a skill built (`.html`), for the viewer's sandboxed frame: inline, under LIVE_HTML_CSP. */
export const GET = handle(async (request: Request, { params }: Params) => {
  const id = await existingChat(request, params);
  const name = filePathFrom((await params).path);
  if (!isLiveHtml(name)) throw new AppError('bad_request:file', 'Only .html and .htm files are shown live');
  const file = await openWorkspaceFile((await getApp()).config.execution.workspace.dir, id, name);
  if (!file) throw new AppError('not_found:file', `File "${name}" does not exist in this chat`);
  const body = Readable.toWeb(file.handle.createReadStream()) as ReadableStream<Uint8Array>;
  return new Response(body, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-length': String(file.size),
      'content-security-policy': LIVE_HTML_CSP,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    },
  });
});
