/**
 * A file of a chat's workspace named by a relative path (`pages/p-1.pdf`), as the server reads it: every folder on
 * the way a real folder and the file a regular file, never through a link (a script can leave `pages -> /etc` in its
 * workspace), and the version of the file its caches are keyed by: size, mtime and inode (not ctime: a run hands
 * the workspace's files to its uid, which moves it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { safeRelativePath } from '../workspace/file-names';
import { workspaceDir } from '../workspace/workspace';

export interface FileVersion {
  size: number;
  mtimeMs: number;
  ino: number;
}

/**
 * The file's version, or null when the path is not allowed (`safeRelativePath`, the one rule for naming a workspace
 * file), missing, goes through a link or a non-folder, or ends
 * at anything but a regular file.
 */
export async function fileVersion(root: string, chatId: string, rel: string): Promise<FileVersion | null> {
  if (safeRelativePath(rel) === null) return null;
  let at = workspaceDir(root, chatId);
  const segments = rel.split('/');
  for (const [i, segment] of segments.entries()) {
    at = path.join(/*turbopackIgnore: true*/ at, segment);
    const stat = await fs.promises.lstat(/*turbopackIgnore: true*/ at).catch(() => null);
    if (!stat) return null;
    const last = i === segments.length - 1;
    if (last ? !stat.isFile() : !stat.isDirectory()) return null;
    if (last) return { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino };
  }
  return null;
}

export const sameVersion = (a: FileVersion, b: FileVersion) =>
  a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;

export const versionKey = (chatId: string, rel: string, v: FileVersion) =>
  `${chatId}\0${rel}\0${v.size}\0${v.mtimeMs}\0${v.ino}`;
