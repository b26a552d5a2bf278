/**
 * The versions of a chat's files that its runs wrote: when a run ends, each file it created or changed is copied to
 *
 *   <workspaces>/<chatId>/versions/<id>        the bytes as the run left them
 *   <workspaces>/<chatId>/versions/<id>.json   { name, size, at }
 *
 * and the run's result names the copy (`FileChange.version`), so the chat's messages say which turn made which
 * version. The viewer lists a file's versions and opens an earlier one (`/api/chats/:id/files/<path>?version=<id>`).
 * Outside `files/`, so a run can neither read nor change them; deleted with the chat. Counted in the person's and
 * the server's caps (`quota.ts`), not in the chat's own, and bounded on their own: a copy of at most
 * `MAX_VERSION_BYTES`, `MAX_VERSIONS_PER_FILE` a file, and a chat's copies at most `MAX_VERSIONS_BYTES` and its
 * workspace's own cap, the oldest dropped first.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { guessMediaType } from '../skills/resources/resources';
import { safeRelativePath } from './file-names';
import { versionsDir, workspaceDir } from './folders';
import type { FileChange } from './workspace';

export const MAX_VERSION_BYTES = 10 * 1024 * 1024;
export const MAX_VERSIONS_PER_FILE = 20;
export const MAX_VERSIONS_BYTES = 100 * 1024 * 1024;

export interface FileVersionEntry {
  id: string;
  name: string;
  size: number;
  /** When the run that wrote it ended (ISO). */
  at: string;
}

// Time first (base 36, fixed width), so ids sort in the order the versions were made.
const ID = /^[0-9a-z]{9}-[0-9a-f]{8}$/;
const newId = () => `${Date.now().toString(36).padStart(9, '0')}-${randomBytes(4).toString('hex')}`;

/** Every kept version of the chat's files, oldest first. */
async function allVersions(root: string, chatId: string): Promise<FileVersionEntry[]> {
  const dir = versionsDir(root, chatId);
  const names = await fs.promises.readdir(/*turbopackIgnore: true*/ dir).catch(() => [] as string[]);
  const entries = await Promise.all(
    names
      .filter((n) => n.endsWith('.json') && ID.test(n.slice(0, -5)))
      .map(async (n) => {
        try {
          const raw = JSON.parse(await fs.promises.readFile(/*turbopackIgnore: true*/ path.join(dir, n), 'utf8'));
          return { id: n.slice(0, -5), name: String(raw.name), size: Number(raw.size), at: String(raw.at) };
        } catch {
          return null;
        }
      }),
  );
  return entries.filter((e): e is FileVersionEntry => e !== null).sort((a, b) => a.id.localeCompare(b.id));
}

async function drop(root: string, chatId: string, id: string): Promise<void> {
  const dir = versionsDir(root, chatId);
  await fs.promises.rm(/*turbopackIgnore: true*/ path.join(dir, `${id}.json`), { force: true });
  await fs.promises.rm(/*turbopackIgnore: true*/ path.join(dir, id), { force: true });
}

/**
 * Copies each file a run created or changed (regular files only, never through a link) and returns the changes
 * with the copy's id; a file over `MAX_VERSION_BYTES`, or one that could not be copied, gets none.
 */
export async function keepVersions(
  root: string,
  chatId: string,
  changes: FileChange[],
  maxBytes = MAX_VERSIONS_BYTES,
): Promise<FileChange[]> {
  if (changes.length === 0) return changes;
  const dir = versionsDir(root, chatId);
  await fs.promises.mkdir(/*turbopackIgnore: true*/ dir, { recursive: true });
  const files = workspaceDir(root, chatId);
  const at = new Date().toISOString();
  const kept = await Promise.all(
    changes.map(async (change): Promise<FileChange> => {
      if (change.size > MAX_VERSION_BYTES || safeRelativePath(change.name) === null) return change;
      const id = newId();
      const target = path.join(/*turbopackIgnore: true*/ dir, id);
      try {
        const source = await fs.promises.open(
          /*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ files, change.name),
          fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK,
        );
        try {
          const stat = await source.stat();
          if (!stat.isFile() || stat.size > MAX_VERSION_BYTES) return change;
          await fs.promises.writeFile(/*turbopackIgnore: true*/ target, source.createReadStream());
        } finally {
          await source.close();
        }
        const size = (await fs.promises.stat(/*turbopackIgnore: true*/ target)).size;
        const entry = { name: change.name, size, at };
        await fs.promises.writeFile(/*turbopackIgnore: true*/ `${target}.json`, JSON.stringify(entry));
        return { ...change, version: id };
      } catch {
        await fs.promises.rm(/*turbopackIgnore: true*/ target, { force: true });
        return change;
      }
    }),
  );
  await prune(root, chatId, Math.min(maxBytes, MAX_VERSIONS_BYTES));
  return kept;
}

/** The oldest go first: beyond `MAX_VERSIONS_PER_FILE` of one file, then while the chat's copies are over `maxBytes`. */
async function prune(root: string, chatId: string, maxBytes: number): Promise<void> {
  const all = await allVersions(root, chatId);
  const perFile = new Map<string, number>();
  const dropped = new Set<string>();
  for (const v of [...all].reverse()) {
    const n = (perFile.get(v.name) ?? 0) + 1;
    perFile.set(v.name, n);
    if (n > MAX_VERSIONS_PER_FILE) dropped.add(v.id);
  }
  let bytes = all.filter((v) => !dropped.has(v.id)).reduce((sum, v) => sum + v.size, 0);
  for (const v of all) {
    if (bytes <= maxBytes) break;
    if (dropped.has(v.id)) continue;
    dropped.add(v.id);
    bytes -= v.size;
  }
  for (const id of dropped) await drop(root, chatId, id);
}

/** The kept versions of the file at `name`, oldest first. */
export async function listVersions(root: string, chatId: string, name: string): Promise<FileVersionEntry[]> {
  return (await allVersions(root, chatId)).filter((v) => v.name === name);
}

/** A kept version of the file at `name` opened for reading; null when there is no such version of that file. */
export async function openVersion(
  root: string,
  chatId: string,
  name: string,
  id: string,
): Promise<{ handle: fs.promises.FileHandle; size: number; mediaType: string } | null> {
  if (!ID.test(id)) return null;
  const entry = (await listVersions(root, chatId, name)).find((v) => v.id === id);
  if (!entry) return null;
  try {
    const handle = await fs.promises.open(
      /*turbopackIgnore: true*/ path.join(versionsDir(root, chatId), id),
      fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW,
    );
    const stat = await handle.stat();
    return { handle, size: stat.size, mediaType: guessMediaType(name, true) };
  } catch {
    return null;
  }
}
