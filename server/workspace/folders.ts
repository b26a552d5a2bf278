/** Where a chat's files live: `<workspaces>/<chatId>/` (meta.json, text/) and its `files/` (the sandbox's /workspace). */
import path from 'node:path';

export function chatFolder(root: string, chatId: string): string {
  // Chat ids are validated by the routes (letters, digits, `_`, `-`); this is the last line, not the only one.
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(chatId)) throw new RangeError('invalid chat id');
  return path.join(/*turbopackIgnore: true*/ root, chatId);
}

export function workspaceDir(root: string, chatId: string): string {
  return path.join(/*turbopackIgnore: true*/ chatFolder(root, chatId), 'files');
}
