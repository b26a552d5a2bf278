/**
 * A run's files: the chat's workspace as code running in a sandbox gets it, and what the run did to it. A sandbox
 * backend sees only `SandboxFiles` (where the files are, and whether they are over the run's caps now); the run
 * (server/sandbox/run.ts) drives the rest: the room the chat has under every cap, what was there when the run
 * started, taking back what an over-cap run added, and recording what it made.
 *
 * Today the files are a folder on this machine (`<workspaces>/<chat>/files`, or a throwaway folder for a run
 * without a chat), which a local backend binds at /workspace. A backend whose sandboxes run elsewhere copies the
 * folder in over its own API before the command and what changed back after it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { forgetUsage, type QuotaCaps, type Room, recordOwner, roomFor } from './quota';
import { measureTree, type UsageCaps, usageMessage } from './usage';
import {
  diffWorkspace,
  ensureWorkspace,
  type FileChange,
  recordScriptFiles,
  removeCreated,
  scanWorkspace,
  topNames,
  uploadedNames,
} from './workspace';

/** What a sandbox backend needs of a run's files. */
export interface SandboxFiles {
  /** The folder on this machine that holds them: a backend on this machine binds it at /workspace. */
  readonly dir: string;
  /** Why the files are over the run's caps now (in words, naming the cap), or null. Polled while a run goes on. */
  overCap(): Promise<string | null>;
}

export interface RunFiles extends SandboxFiles {
  /** Bytes the files may hold in all (the least room under the chat's, the person's and the server's caps). */
  readonly maxBytes: number;
  /** Notes what is there as the run starts (after any wait for a slot: another run of the chat may change it). */
  begin(): Promise<void>;
  /** After the run: what it created or changed, and, when over a cap, the message (what it added is taken back). */
  finish(): Promise<{ changes: FileChange[]; overCap: string | null }>;
  /** Removes a throwaway folder; a chat's files stay. */
  close(): Promise<void>;
}

export interface RunFilesOptions {
  /** The chat whose workspace the run works in; without one a throwaway folder is used. */
  chatId?: string;
  /** Whose files these are: the person and server caps count them. */
  owner?: string;
}

/** The caps of a folder, for runs that only read it (a preview, a document's text): stopped when it grows past them. */
export function folderFiles(dir: string, caps: UsageCaps): SandboxFiles {
  return {
    dir,
    async overCap() {
      const usage = await measureTree(dir, caps);
      return usage.over ? usageMessage(usage, caps) : null;
    },
  };
}

/** The files of a run: the chat's workspace, with the room it has under every cap, or a throwaway folder. */
export async function openRunFiles(
  workspace: QuotaCaps & { dir: string; maxWorkspaceEntries: number },
  options: RunFilesOptions,
): Promise<RunFiles> {
  const { chatId, owner } = options;
  const root = workspace.dir;
  const dir = chatId
    ? await ensureWorkspace(root, chatId)
    : await fs.promises.mkdtemp(
        /*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ os.tmpdir(), 'skillchat-ws-'),
      );
  // A person's and the server's caps over all chats: the run may fill only the room its chat has under them.
  let room: Room | null = null;
  if (chatId && owner) {
    await recordOwner(root, chatId, owner);
    room = await roomFor(root, chatId, owner, workspace);
  }
  const caps: UsageCaps = {
    maxBytes: room?.bytes ?? workspace.maxWorkspaceBytes,
    maxEntries: workspace.maxWorkspaceEntries,
    bytesLabel: room?.label,
  };
  const measured = folderFiles(dir, caps);
  let before = await scanWorkspace(dir);
  let names = await topNames(dir);
  return {
    dir,
    maxBytes: caps.maxBytes,
    overCap: measured.overCap,
    async begin() {
      before = await scanWorkspace(dir);
      names = await topNames(dir);
    },
    async finish() {
      const overCap = await takeBackOverCap(dir, names, caps, chatId ? root : null, chatId);
      if (chatId) forgetUsage(root);
      const changes = diffWorkspace(before, await scanWorkspace(dir));
      if (chatId) await recordScriptFiles(root, chatId, changes);
      return { changes, overCap };
    },
    async close() {
      if (!chatId) await fs.promises.rm(/*turbopackIgnore: true*/ dir, { recursive: true, force: true });
    },
  };
}

/**
 * The workspace after the run: over a cap (the run was stopped for it, or wrote the rest between two checks),
 * everything the run added at the top is removed, uploads never. Returns the message for the result, or null.
 */
async function takeBackOverCap(
  dir: string,
  before: Set<string>,
  caps: UsageCaps,
  root: string | null,
  chatId: string | undefined,
): Promise<string | null> {
  const usage = await measureTree(dir, caps);
  if (!usage.over) return null;
  const keep = root && chatId ? await uploadedNames(root, chatId) : new Set<string>();
  const removed = await removeCreated(dir, before, keep);
  const still = (await measureTree(dir, caps)).over !== null;
  const done = removed > 0 ? '; the files this run created were removed' : '';
  return `${usageMessage(usage, caps)}${done}${still ? '; delete files before running more' : ''}`;
}
