/**
 * A folder as a source (a git checkout, or a folder given to `bin/skills install`): its entries are read with
 * `lstat`, so links and special files are seen as what they are, and a file with more than one link is a hard link
 * (its content may be shared with a file outside the skill).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ArchiveEntry, EntryKind } from './problems';

function kindOf(stat: fs.Stats): EntryKind {
  if (stat.isSymbolicLink()) return 'symlink';
  if (stat.isDirectory()) return 'directory';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'device';
  if (stat.isFile()) return stat.nlink > 1 ? 'hardlink' : 'file';
  return 'special';
}

/** Every entry under `dir` (posix relative paths), stopping after `cap` so a huge tree costs little to refuse. */
export async function listTree(
  dir: string,
  cap: number,
  skip: ReadonlySet<string> = new Set(),
): Promise<ArchiveEntry[]> {
  const entries: ArchiveEntry[] = [];
  const pending: string[] = [''];
  while (pending.length > 0 && entries.length <= cap) {
    const rel = pending.pop()!;
    const names = await fs.promises.readdir(path.join(dir, rel));
    for (const name of names.sort()) {
      const childRel = rel ? `${rel}/${name}` : name;
      if (skip.has(childRel)) continue;
      const stat = await fs.promises.lstat(path.join(dir, childRel));
      const kind = kindOf(stat);
      entries.push({
        path: kind === 'directory' ? `${childRel}/` : childRel,
        kind,
        size: kind === 'file' ? stat.size : 0,
      });
      if (kind === 'directory') pending.push(childRel);
    }
  }
  return entries;
}

/** Copies a checked tree's files and folders into `dest` (mode 0644/0755, exclusive create). */
export async function copyTree(src: string, entries: readonly ArchiveEntry[], dest: string): Promise<void> {
  for (const entry of entries) {
    const target = path.join(dest, entry.path);
    if (entry.kind === 'directory') await fs.promises.mkdir(target, { recursive: true, mode: 0o755 });
    else if (entry.kind === 'file') {
      await fs.promises.mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
      await fs.promises.copyFile(path.join(src, entry.path), target, fs.constants.COPYFILE_EXCL);
      await fs.promises.chmod(target, 0o644);
    }
  }
}
