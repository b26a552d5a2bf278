/**
 * Lists the files of a skill folder for activation output and the admin file tree. Symlinks are listed by name but
 * never followed: whether a link may be read is decided by `readSkillResource` at read time, not here.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export interface SkillFileEntry {
  /** Relative path, posix separators. */
  path: string;
  size: number;
  kind: 'file' | 'symlink';
}

export interface SkillFileListing {
  files: SkillFileEntry[];
  /** More files exist than `maxFiles`. */
  capped: boolean;
}

const SKIPPED = new Set(['.git', 'node_modules', '__pycache__', '.DS_Store']);

export async function listSkillFiles(dir: string, options: { maxFiles?: number; maxDepth?: number } = {}) {
  const maxFiles = options.maxFiles ?? 200;
  const maxDepth = options.maxDepth ?? 6;
  const files: SkillFileEntry[] = [];
  let capped = false;

  async function walk(abs: string, rel: string, depth: number): Promise<void> {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(abs, { withFileTypes: true });
    } catch {
      return; // An unreadable subfolder is left out of the listing; reading a file in it reports the real error.
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (SKIPPED.has(entry.name)) continue;
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      const childAbs = path.join(abs, entry.name);
      if (entry.isDirectory()) {
        if (depth < maxDepth) await walk(childAbs, childRel, depth + 1);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        if (files.length >= maxFiles) {
          capped = true;
          return;
        }
        const stat = await fs.lstat(childAbs).catch(() => null);
        files.push({ path: childRel, size: stat?.size ?? 0, kind: entry.isSymbolicLink() ? 'symlink' : 'file' });
      }
    }
  }

  await walk(dir, '', 0);
  return { files, capped } satisfies SkillFileListing;
}

const SCRIPT_EXTENSIONS = new Set(['.sh', '.bash', '.py', '.js', '.mjs', '.cjs', '.ts', '.rb', '.pl', '.ps1']);

/**
 * Whether a file in a skill folder is a script: anything under `scripts/`, or a file with a script's extension.
 * Grants are tied to these (access/content-hash.ts). Which of them the sandbox can run is narrower
 * (server/sandbox/interpreter.ts).
 */
export function isScriptPath(relPath: string): boolean {
  return relPath.startsWith('scripts/') || SCRIPT_EXTENSIONS.has(path.extname(relPath).toLowerCase());
}
