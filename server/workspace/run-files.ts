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
import { keepVersions } from './file-versions';
import { forgetUsage, type QuotaCaps, type Room, recordOwner, roomFor } from './quota';
import { removeTrees } from './remove';
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
  /**
   * The chat's layer (workspace/folders.ts `layerDir`) when the run may install packages into it: what it adds
   * there counts against the same room as its files.
   */
  layer?: string;
}

/** How often a run's layer is measured: it can hold tens of thousands of files, the workspace a few. */
const LAYER_POLL_MS = 2_000;
const LAYER_ENTRIES = 1_000_000;

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
  const layer = options.layer ?? null;
  const layerBefore = layer ? (await measureTree(layer, { maxBytes: Infinity, maxEntries: LAYER_ENTRIES })).bytes : 0;
  const caps: UsageCaps = {
    // roomFor already left out the layer; without an owner, the chat cap alone is left to share with it.
    maxBytes: room?.bytes ?? Math.max(0, workspace.maxWorkspaceBytes - layerBefore),
    maxEntries: workspace.maxWorkspaceEntries,
    bytesLabel: room?.label,
  };
  const measured = folderFiles(dir, caps);
  const overCap = layer ? layerOverCap(dir, layer, layerBefore, caps) : measured.overCap;
  let before = await scanWorkspace(dir);
  let names = await topNames(dir);
  return {
    dir,
    maxBytes: caps.maxBytes,
    overCap,
    async begin() {
      before = await scanWorkspace(dir);
      names = await topNames(dir);
    },
    async finish() {
      const overCap = await takeBackOverCap(dir, names, caps, chatId ? root : null, chatId);
      if (chatId) forgetUsage(root);
      const found = diffWorkspace(before, await scanWorkspace(dir));
      if (!chatId) return { changes: found, overCap };
      await recordScriptFiles(root, chatId, found);
      return { changes: await keepVersions(root, chatId, found, workspace.maxWorkspaceBytes), overCap };
    },
    async close() {
      if (!chatId) await removeTrees(path.dirname(/*turbopackIgnore: true*/ dir), [path.basename(dir)]);
    },
  };
}

/**
 * The caps of a run that may install packages: its files and what it added to the layer share the room (entries
 * count the files alone: a package is thousands of them). The layer is measured every LAYER_POLL_MS.
 */
function layerOverCap(dir: string, layer: string, before: number, caps: UsageCaps): () => Promise<string | null> {
  let added = 0;
  let at = 0;
  return async () => {
    if (Date.now() - at >= LAYER_POLL_MS) {
      at = Date.now();
      const now = await measureTree(layer, { maxBytes: before + caps.maxBytes, maxEntries: LAYER_ENTRIES });
      // A layer that cannot be measured is charged the whole room.
      added =
        now.over === 'unmeasured' || now.over === 'depth' ? Number.POSITIVE_INFINITY : Math.max(0, now.bytes - before);
    }
    const over = `the workspace and the packages this run installed hold more than ${caps.maxBytes} bytes (${caps.bytesLabel ?? 'the workspace limit'})`;
    if (added > caps.maxBytes) return over;
    const files = await measureTree(dir, { ...caps, maxBytes: caps.maxBytes - added });
    if (files.over === null) return null;
    return files.over !== 'bytes' || added === 0 ? usageMessage(files, caps) : over;
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
