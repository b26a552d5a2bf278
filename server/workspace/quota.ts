/**
 * Caps over many chats: one chat may hold `workspace.maxWorkspaceBytes`, a person `workspace.maxPersonBytes` across
 * all their chats, the server `workspace.maxServerBytes` across everyone's. An upload past a cap is refused with the
 * cap's name; a run gets, as its workspace limit, only the room its chat has under all three, so a script that would
 * cross one is stopped with that cap's name (server/sandbox/run.ts).
 *
 * Who owns a chat's files is written into its `meta.json` (outside the sandbox's reach) at each upload and run, so
 * usage is measured from the workspaces alone, without the database. Measuring walks every chat's folder (bounded by
 * the caps); the totals are kept for a few seconds, and dropped at once when this process writes files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { processWide } from '../process-wide';
import { layerDir, readMeta, versionsDir, workspaceDir, writeMeta } from './folders';
import { measureTree } from './usage';

export interface QuotaCaps {
  maxWorkspaceBytes: number;
  maxPersonBytes: number;
  maxServerBytes: number;
}

export interface WorkspaceUsage {
  /** Every chat's files, bytes (the larger of length and blocks, as the sandbox counts them). */
  total: number;
  byOwner: Map<string, number>;
  /** `bytes` counts the chat's files and its layer (packages its runs installed), `layer` the layer alone. */
  /**
   * `unmeasured`: part of the chat's files or layer could not be measured (workspace/usage.ts); the chat is then
   * charged at least the chat cap, and gets no room itself.
   */
  byChat: Map<string, { owner: string; bytes: number; layer: number; unmeasured: boolean }>;
}

/** Where deleted chats' folders wait to be removed (workspace.ts `deleteWorkspace`); counted in the server's total. */
export const TRASH = '.deleted';

/** How long measured totals are reused: a quota a few seconds stale is fine, a walk of every chat per upload is not. */
const KEEP_MS = 5_000;
// Process-wide: the upload route drops the totals that the chat route's runs read, from another bundle.
const kept = processWide('workspace-usage', () => new Map<string, { at: number; usage: Promise<WorkspaceUsage> }>());

/** Drops the kept totals (this process changed files: an upload, a run, a deleted chat). */
export function forgetUsage(root: string): void {
  kept.delete(path.resolve(/*turbopackIgnore: true*/ root));
}

async function measure(root: string): Promise<WorkspaceUsage> {
  const usage: WorkspaceUsage = { total: 0, byOwner: new Map(), byChat: new Map() };
  const chats = await fs.promises.readdir(/*turbopackIgnore: true*/ root).catch(() => [] as string[]);
  const all = { maxBytes: Number.MAX_SAFE_INTEGER, maxEntries: 1_000_000 };
  for (const chatId of chats) {
    if (chatId === TRASH)
      usage.total += (await measureTree(path.join(/*turbopackIgnore: true*/ root, TRASH), all)).bytes;
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(chatId)) continue;
    const [owner, tree, layer, versions] = await Promise.all([
      readMeta(root, chatId).then((meta) => meta.owner ?? ''),
      measureTree(workspaceDir(root, chatId), all),
      measureTree(layerDir(root, chatId), all),
      measureTree(versionsDir(root, chatId), all),
    ]);
    const bytes = tree.bytes + layer.bytes;
    // The kept copies of files (file-versions.ts) are the owner's and the server's bytes, not the chat's room.
    usage.total += bytes + versions.bytes;
    const unmeasured = [tree.over, layer.over].some((over) => over === 'unmeasured' || over === 'depth');
    usage.byChat.set(chatId, { owner, bytes, layer: layer.bytes, unmeasured });
    if (owner) usage.byOwner.set(owner, (usage.byOwner.get(owner) ?? 0) + bytes + versions.bytes);
  }
  return usage;
}

export function workspaceUsage(root: string): Promise<WorkspaceUsage> {
  const key = path.resolve(/*turbopackIgnore: true*/ root);
  const hit = kept.get(key);
  if (hit && Date.now() - hit.at < KEEP_MS) return hit.usage;
  const usage = measure(root);
  kept.set(key, { at: Date.now(), usage });
  return usage;
}

export interface Room {
  /** Bytes the chat's workspace may hold in all, under every cap. */
  bytes: number;
  /** The cap that gives the least room, in words for a person, with its setting. */
  label: string;
}

/**
 * How much the chat's files may hold now, given what the owner's other chats and everyone else's hold. The chat's
 * layer (its installed packages, measured before the run) takes its share of every cap.
 */
export async function roomFor(root: string, chatId: string, owner: string, caps: QuotaCaps): Promise<Room> {
  const usage = await workspaceUsage(root);
  const chat = usage.byChat.get(chatId);
  if (chat?.unmeasured) {
    return {
      bytes: 0,
      label: 'the workspace limit: part of its files could not be measured; delete files or the chat',
    };
  }
  const own = chat?.bytes ?? 0;
  const layer = chat?.layer ?? 0;
  // Other chats that could not be measured count as at least a full chat.
  let person = (usage.byOwner.get(owner) ?? 0) - (chat?.owner === owner ? own : 0) + layer;
  let server = usage.total - own + layer;
  for (const [id, other] of usage.byChat) {
    if (!other.unmeasured || id === chatId) continue;
    const extra = Math.max(0, caps.maxWorkspaceBytes - other.bytes);
    server += extra;
    if (other.owner === owner) person += extra;
  }
  const options: Room[] = [
    { bytes: Math.max(0, caps.maxWorkspaceBytes - layer), label: 'the workspace limit' },
    {
      bytes: Math.max(0, caps.maxPersonBytes - person),
      label: `what is left of your ${caps.maxPersonBytes} bytes across all your chats, workspace.maxPersonBytes`,
    },
    {
      bytes: Math.max(0, caps.maxServerBytes - server),
      label: `what is left of the server's ${caps.maxServerBytes} bytes for everyone's files, workspace.maxServerBytes`,
    },
  ];
  return options.reduce((least, option) => (option.bytes < least.bytes ? option : least));
}

/** Records who owns a chat's files (kept in meta.json beside them). */
export async function recordOwner(root: string, chatId: string, owner: string): Promise<void> {
  const meta = await readMeta(root, chatId);
  if (meta.owner === owner) return;
  await writeMeta(root, chatId, { ...meta, owner });
}
