/**
 * One folder per chat for the files people upload and scripts write:
 *
 *   <workspaces>/<chatId>/files/   the workspace itself (uploads at the top, folders scripts made; /workspace in the sandbox)
 *   <workspaces>/<chatId>/meta.json  where each file came from (upload or script), outside the sandbox's reach
 *   <workspaces>/<chatId>/text/      each document's text as the model gets it (documents/extract.ts), likewise
 *   <workspaces>/<chatId>/layer/     packages its runs installed (runtime.installs `allow`; /opt/skillchat-layer)
 *   <workspaces>/<chatId>/versions/  a copy of each version of a file a run wrote (file-versions.ts)
 *
 * The server only ever reads regular files here, opened without following links: a script can leave a symlink
 * to `/etc/shadow` in its workspace, and it is neither listed nor served.
 */
import fs from 'node:fs';
import path from 'node:path';
import { guessMediaType } from '../skills/resources/resources';
import { MAX_PATH_DEPTH, safeRelativePath, uniqueName } from './file-names';
import { chatFolder, type FileOrigin, readMeta, workspaceDir, writeMeta } from './folders';
import { forgetUsage, type QuotaCaps, recordOwner, roomFor, TRASH } from './quota';
import { removeTrees } from './remove';

export interface WorkspaceFile {
  /** The path in the workspace: a bare name at the top, `folder/name` below. */
  name: string;
  size: number;
  mediaType: string;
  origin: FileOrigin;
  createdAt: string;
  /** Set when the chat's latest run that changed files created or changed this one. */
  change?: 'created' | 'changed';
}

export interface WorkspaceCaps {
  maxUploadBytes: number;
  maxFiles: number;
  maxWorkspaceBytes: number;
}

export { chatFolder, type FileOrigin, layerDir, workspaceDir } from './folders';

export async function ensureWorkspace(root: string, chatId: string): Promise<string> {
  const dir = workspaceDir(root, chatId);
  await fs.promises.mkdir(/*turbopackIgnore: true*/ dir, { recursive: true, mode: 0o755 });
  return dir;
}

/** How many files a scan lists at most: a run that unpacks a package leaves thousands, and a listing is for people. */
export const MAX_SCANNED_FILES = 5_000;

/**
 * Regular files of the workspace with their stats, keyed by their path (`pages/p-1.png`), folders walked to
 * MAX_PATH_DEPTH. Links (to files or folders), devices, hidden names (`.cache/`) and names no URL could carry safely
 * are skipped.
 */
export async function scanWorkspace(dir: string): Promise<Map<string, fs.Stats>> {
  const found = new Map<string, fs.Stats>();
  // Most chats have no files: one stat says so without the thread-pool round trips of a failing readdir (a turn
  // lists the workspace before it answers).
  if (!fs.existsSync(/*turbopackIgnore: true*/ dir)) return found;
  const walk = async (prefix: string, depth: number): Promise<void> => {
    let names: string[];
    try {
      names = await fs.promises.readdir(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ dir, prefix));
    } catch {
      return;
    }
    for (const name of names.sort()) {
      if (found.size >= MAX_SCANNED_FILES) return;
      const rel = prefix === '' ? name : `${prefix}/${name}`;
      if (safeRelativePath(rel) === null) continue;
      const stat = await fs.promises
        .lstat(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ dir, rel))
        .catch(() => null);
      if (stat?.isFile()) found.set(rel, stat);
      else if (stat?.isDirectory() && depth + 1 < MAX_PATH_DEPTH) await walk(rel, depth + 1);
    }
  };
  await walk('', 0);
  return found;
}

export async function listWorkspace(root: string, chatId: string): Promise<WorkspaceFile[]> {
  const files = await scanWorkspace(workspaceDir(root, chatId));
  if (files.size === 0) return [];
  const meta = await readMeta(root, chatId);
  const last = meta.lastRun;
  return [...files]
    .map(([name, stat]) => {
      const change = last?.created.includes(name) ? 'created' : last?.changed.includes(name) ? 'changed' : undefined;
      return {
        name,
        size: stat.size,
        mediaType: guessMediaType(name, true),
        origin: meta.files[name]?.origin ?? 'script',
        createdAt: meta.files[name]?.createdAt ?? stat.mtime.toISOString(),
        ...(change ? { change } : {}),
      } satisfies WorkspaceFile;
    })
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.name.localeCompare(b.name));
}

export type UploadResult =
  | { ok: true; file: WorkspaceFile }
  | { ok: false; code: 'too-large' | 'too-many' | 'full'; error: string };

/** Stores an upload under a safe, unique name (the caller made `safeName` with `safeFileName`). */
export async function saveUpload(
  root: string,
  chatId: string,
  safeName: string,
  data: Uint8Array,
  caps: WorkspaceCaps & Partial<Omit<QuotaCaps, 'maxWorkspaceBytes'>>,
  /** Whose files these are: the person and server caps count them (quota.ts). */
  owner?: string,
): Promise<UploadResult> {
  if (data.length > caps.maxUploadBytes) {
    return {
      ok: false,
      code: 'too-large',
      error: `The file is ${data.length} bytes; the limit is ${caps.maxUploadBytes}`,
    };
  }
  const dir = await ensureWorkspace(root, chatId);
  const existing = await scanWorkspace(dir);
  if (existing.size >= caps.maxFiles) {
    return {
      ok: false,
      code: 'too-many',
      error: `This chat already has ${existing.size} files; the limit is ${caps.maxFiles}`,
    };
  }
  const used = [...existing.values()].reduce((sum, s) => sum + s.size, 0);
  if (used + data.length > caps.maxWorkspaceBytes) {
    return { ok: false, code: 'full', error: `The chat's files would exceed ${caps.maxWorkspaceBytes} bytes` };
  }
  if (owner !== undefined && caps.maxPersonBytes !== undefined && caps.maxServerBytes !== undefined) {
    await recordOwner(root, chatId, owner);
    const room = await roomFor(root, chatId, owner, {
      maxWorkspaceBytes: caps.maxWorkspaceBytes,
      maxPersonBytes: caps.maxPersonBytes,
      maxServerBytes: caps.maxServerBytes,
    });
    if (used + data.length > room.bytes) {
      const whose = room.label.includes('maxServerBytes') ? "the server's space for files" : 'your space for files';
      return {
        ok: false,
        code: 'full',
        error: `This file would take ${whose} past its limit (${room.label}); delete files or chats you no longer need`,
      };
    }
  }
  const taken = new Set((await fs.promises.readdir(/*turbopackIgnore: true*/ dir)).map((n) => n));
  const name = uniqueName(safeName, taken);
  // `wx`: never through an existing name (a link a script left behind included).
  await fs.promises.writeFile(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ dir, name), data, {
    flag: 'wx',
    mode: 0o644,
  });
  const createdAt = new Date().toISOString();
  const meta = await readMeta(root, chatId);
  meta.files[name] = { origin: 'upload', createdAt };
  await writeMeta(root, chatId, meta);
  forgetUsage(root);
  return {
    ok: true,
    file: { name, size: data.length, mediaType: guessMediaType(name, true), origin: 'upload', createdAt },
  };
}

/**
 * Opens a workspace file for reading by its path (`report.pdf`, `pages/p-1.png`); null when the path is not a safe
 * relative one, or names nothing, a folder, a link, or a file through a linked folder. A running script can swap a
 * folder for a link at any moment, so the opened file's real path is checked after the open, not only before.
 */
export async function openWorkspaceFile(
  root: string,
  chatId: string,
  name: string,
): Promise<{ handle: fs.promises.FileHandle; size: number; mediaType: string } | null> {
  const rel = safeRelativePath(name);
  if (rel === null) return null;
  const dir = workspaceDir(root, chatId);
  const segments = rel.split('/');
  for (let i = 1; i < segments.length; i++) {
    const folder = path.join(/*turbopackIgnore: true*/ dir, ...segments.slice(0, i));
    const stat = await fs.promises.lstat(/*turbopackIgnore: true*/ folder).catch(() => null);
    if (!stat?.isDirectory()) return null;
  }
  const file = path.join(/*turbopackIgnore: true*/ dir, rel);
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(
      /*turbopackIgnore: true*/ file,
      fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK,
    );
  } catch {
    return null;
  }
  const stat = await handle.stat();
  if (!stat.isFile() || !(await opensInside(handle, dir, rel))) {
    await handle.close();
    return null;
  }
  return { handle, size: stat.size, mediaType: guessMediaType(rel, true) };
}

/** Is the opened file the one at `dir/rel`? Where /proc tells (Linux) the descriptor's own path is compared. */
async function opensInside(handle: fs.promises.FileHandle, dir: string, rel: string): Promise<boolean> {
  if (!rel.includes('/')) return true;
  const real = await fs.promises.readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
  if (real === null) return true;
  const base = await fs.promises.realpath(/*turbopackIgnore: true*/ dir).catch(() => null);
  return base !== null && real === path.join(/*turbopackIgnore: true*/ base, rel);
}

/**
 * Removes a chat's folder. It is first moved into the trash (`<workspaces>/.deleted/`, counted in the server's
 * total), so its id is free at once and what could not be removed is retried at every later deletion. Never
 * throws: returns false when something is left (in the trash, or the folder itself when it could not be moved).
 */
export async function deleteWorkspace(root: string, chatId: string): Promise<boolean> {
  const folder = chatFolder(root, chatId);
  const trash = path.join(/*turbopackIgnore: true*/ root, TRASH);
  let left = true;
  try {
    await fs.promises.mkdir(/*turbopackIgnore: true*/ trash, { recursive: true });
    await fs.promises.rename(
      /*turbopackIgnore: true*/ folder,
      path.join(/*turbopackIgnore: true*/ trash, `${chatId}-${Date.now()}`),
    );
    left = false;
  } catch (error) {
    left = (error as NodeJS.ErrnoException).code !== 'ENOENT' && !(await removeTrees(root, [chatId]));
  }
  const names = await fs.promises.readdir(/*turbopackIgnore: true*/ trash).catch(() => [] as string[]);
  const emptied = await removeTrees(trash, names);
  forgetUsage(root);
  return emptied && !left;
}

export interface FileChange {
  name: string;
  size: number;
  mediaType: string;
  status: 'created' | 'changed';
  /** The copy of this version kept for the viewer (`file-versions.ts`); absent when none was kept. */
  version?: string;
}

/** What a run created or changed, comparing scans before and after (size, mtime, inode). */
export function diffWorkspace(before: Map<string, fs.Stats>, after: Map<string, fs.Stats>): FileChange[] {
  const changes: FileChange[] = [];
  for (const [name, stat] of after) {
    const old = before.get(name);
    const changed = old && (old.size !== stat.size || old.mtimeMs !== stat.mtimeMs || old.ino !== stat.ino);
    if (old && !changed) continue;
    changes.push({ name, size: stat.size, mediaType: guessMediaType(name, true), status: old ? 'changed' : 'created' });
  }
  return changes.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Marks files a script produced (new names only: an upload a script rewrote is still the person's file), and the
 * run's changes as the chat's latest (the Files panel marks them).
 */
export async function recordScriptFiles(root: string, chatId: string, changes: FileChange[]): Promise<void> {
  if (changes.length === 0) return;
  const created = changes.filter((c) => c.status === 'created');
  const meta = await readMeta(root, chatId);
  const at = new Date().toISOString();
  for (const c of created) meta.files[c.name] = { origin: 'script', createdAt: at };
  meta.lastRun = {
    at,
    created: created.map((c) => c.name),
    changed: changes.filter((c) => c.status === 'changed').map((c) => c.name),
  };
  await writeMeta(root, chatId, meta);
}

export function totalBytes(files: Map<string, fs.Stats>): number {
  let sum = 0;
  for (const stat of files.values()) sum += stat.size;
  return sum;
}

/** Every name at the top of the workspace (links, folders and all): what a run may later have to take back. */
export async function topNames(dir: string): Promise<Set<string>> {
  return new Set(await fs.promises.readdir(/*turbopackIgnore: true*/ dir).catch(() => []));
}

/** Names the person uploaded (never removed on a script's account). */
export async function uploadedNames(root: string, chatId: string): Promise<Set<string>> {
  const meta = await readMeta(root, chatId);
  return new Set(Object.entries(meta.files).flatMap(([name, m]) => (m.origin === 'upload' ? [name] : [])));
}

/**
 * Removes what a run added at the top of the workspace (any name not in `before` nor in `keep`), folders with
 * everything in them; links are removed, never followed. Returns how many names were removed.
 */
export async function removeCreated(dir: string, before: Set<string>, keep: Set<string>): Promise<number> {
  let removed = 0;
  for (const name of await topNames(dir)) {
    if (before.has(name) || keep.has(name)) continue;
    const full = path.join(/*turbopackIgnore: true*/ dir, name);
    const stat = await fs.promises.lstat(/*turbopackIgnore: true*/ full).catch(() => null);
    if (!stat) continue;
    const ok = stat.isDirectory()
      ? await removeTrees(dir, [name])
      : await fs.promises.rm(/*turbopackIgnore: true*/ full, { force: true }).then(
          () => true,
          () => false,
        );
    if (ok) removed++;
  }
  return removed;
}
