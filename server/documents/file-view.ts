/**
 * What the file viewer beside the chat asks of a chat's files: a document's pages as images (preview.ts, in the
 * sandbox), and which files it runs live in a frame (the frame's policy: `LIVE_HTML_CSP`, security/headers.ts).
 */
import type { ExecutionConfig } from '../sandbox/config';
import { previewPages, renderPreview } from './preview';

/** A PNG of one page of a document in the workspace (`path` may name a folder), or null when there is none. */
export async function previewPage(
  config: ExecutionConfig,
  chatId: string,
  path: string,
  page: number,
  owner?: string,
): Promise<Buffer | null> {
  return renderPreview(config, chatId, path, page, owner);
}

/** How many pages `previewPage` can show of the file, or null when it has no preview. */
export async function previewPageCount(
  config: ExecutionConfig,
  chatId: string,
  path: string,
  owner?: string,
): Promise<number | null> {
  return previewPages(config, chatId, path, owner);
}

/** Files the viewer runs live in a sandboxed frame. */
export function isLiveHtml(path: string): boolean {
  return /\.html?$/i.test(path);
}
