/**
 * Where a chat's files live: `<workspaces>/<chatId>/` (meta.json, text/), its `files/` (the sandbox's /workspace)
 * and its `layer/` (the packages its runs installed),
 * and the one reader and writer of `meta.json`: where each file came from, and whose the chat's files are.
 */
import fs from 'node:fs';
import path from 'node:path';

export type FileOrigin = 'upload' | 'script';

export interface Meta {
  files: Record<string, { origin: FileOrigin; createdAt: string }>;
  /** What the chat's latest run that changed files created and changed (paths). */
  lastRun?: { at: string; created: string[]; changed: string[] };
  /** The person whose files these are (quota.ts), once an upload or a run has said. */
  owner?: string;
}

export function chatFolder(root: string, chatId: string): string {
  // Chat ids are validated by the routes (letters, digits, `_`, `-`); this is the last line, not the only one.
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(chatId)) throw new RangeError('invalid chat id');
  return path.join(/*turbopackIgnore: true*/ root, chatId);
}

export function workspaceDir(root: string, chatId: string): string {
  return path.join(/*turbopackIgnore: true*/ chatFolder(root, chatId), 'files');
}

/**
 * The chat's layer: what `pip install` and `npm install -g` in its runs add (runtime.installs `allow`), beside its
 * files, so it is counted with them and deleted with the chat.
 */
export function layerDir(root: string, chatId: string): string {
  return path.join(/*turbopackIgnore: true*/ chatFolder(root, chatId), 'layer');
}

/** Copies of the files the chat's runs wrote (file-versions.ts): the owner's, counted in the person and server caps. */
export function versionsDir(root: string, chatId: string): string {
  return path.join(/*turbopackIgnore: true*/ chatFolder(root, chatId), 'versions');
}

export async function readMeta(root: string, chatId: string): Promise<Meta> {
  try {
    const parsed = JSON.parse(
      await fs.promises.readFile(
        /*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ chatFolder(root, chatId), 'meta.json'),
        'utf8',
      ),
    );
    return parsed && typeof parsed === 'object' && parsed.files ? (parsed as Meta) : { files: {} };
  } catch {
    return { files: {} };
  }
}

/** Atomic (a temp file renamed over it), and the chat's folder is made when missing. */
export async function writeMeta(root: string, chatId: string, meta: Meta): Promise<void> {
  const folder = chatFolder(root, chatId);
  await fs.promises.mkdir(/*turbopackIgnore: true*/ folder, { recursive: true });
  const file = path.join(/*turbopackIgnore: true*/ folder, 'meta.json');
  await fs.promises.writeFile(/*turbopackIgnore: true*/ `${file}.tmp`, JSON.stringify(meta));
  await fs.promises.rename(/*turbopackIgnore: true*/ `${file}.tmp`, file);
}
