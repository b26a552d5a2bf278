/**
 * How much of the disk a folder uses, measured without trusting it: links are never followed (lstat only, and each
 * folder is opened with O_NOFOLLOW), folders are read as streams (`opendir`, so a folder of a million names is not
 * listed into memory at once), and the walk stops as soon as either cap is passed, so its cost is bounded by the
 * caps, not by what a script made.
 *
 * The walk is descriptor-relative: each folder is held open and what is inside it is reached as
 * `/proc/self/fd/<fd>/<name>`, never by its full path, so a tree deeper than PATH_MAX (a script's mkdir + cd loop)
 * is measured like any other (Node has no openat; this is the same thing, in this process, with no child to spawn
 * on every 200 ms poll). What cannot be measured (a folder that cannot be opened or read, a tree nested deeper than
 * MAX_DEPTH folders) counts as over the cap.
 *
 * A file counts as the larger of its length and its allocated blocks: a million one-byte files fill a disk through
 * their blocks, and a sparse file is charged for its length (RLIMIT_FSIZE bounds that length anyway).
 */
import fs from 'node:fs';

export interface UsageCaps {
  maxBytes: number;
  /** Files, folders, links and anything else, at any depth. */
  maxEntries: number;
  /** Which limit `maxBytes` is, in words (`the workspace limit` when not said). */
  bytesLabel?: string;
}

export interface Usage {
  bytes: number;
  entries: number;
  /**
   * Which cap was passed (the walk stopped there, so `bytes`/`entries` are lower bounds), or null. `depth`: folders
   * nested deeper than MAX_DEPTH; `unmeasured`: part of the tree could not be read. Both count as over, unmeasured.
   */
  over: 'bytes' | 'entries' | 'depth' | 'unmeasured' | null;
}

function charge(stat: fs.Stats): number {
  return Math.max(stat.size, stat.blocks * 512);
}

/** lstat calls in flight at once: one at a time, a walk of a large folder is mostly waiting on promises. */
const BATCH = 128;
/** Folders nested deeper than this are not walked (one descriptor is held per level): the tree counts as over. */
// A measurement that runs out of descriptors would fail other requests; 256 levels is far past any real tree.
export const MAX_DEPTH = 256;
const OPEN_FOLDER = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW;

/** Gone between listing and looking: whatever is left is counted by the next measurement. */
function gone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP';
}

export async function measureTree(dir: string, caps: UsageCaps): Promise<Usage> {
  const usage: Usage = { bytes: 0, entries: 0, over: null };
  let top: fs.promises.FileHandle;
  try {
    top = await fs.promises.open(/*turbopackIgnore: true*/ dir, OPEN_FOLDER);
  } catch (error) {
    if (!gone(error)) usage.over = 'unmeasured';
    return usage;
  }
  try {
    await walk(top, 1, usage, caps);
  } finally {
    await top.close().catch(() => {});
  }
  return usage;
}

/** Measures what is inside the open folder `folder`, then each folder in it; returns with `usage.over` set at a cap. */
async function walk(folder: fs.promises.FileHandle, depth: number, usage: Usage, caps: UsageCaps): Promise<void> {
  const here = `/proc/self/fd/${folder.fd}`;
  const folders: string[] = [];
  // Returns true once a cap is passed.
  const tally = async (names: string[]): Promise<boolean> => {
    const stats = await Promise.all(
      names.map((name) =>
        fs.promises.lstat(/*turbopackIgnore: true*/ `${here}/${name}`).catch((error) => (gone(error) ? null : error)),
      ),
    );
    for (const [i, name] of names.entries()) {
      const stat = stats[i];
      usage.entries++;
      if (stat instanceof fs.Stats) usage.bytes += charge(stat);
      else if (stat) usage.over = 'unmeasured';
      if (stat instanceof fs.Stats && stat.isDirectory()) folders.push(name);
      if (usage.over) return true;
      if (usage.bytes > caps.maxBytes) usage.over = 'bytes';
      else if (usage.entries > caps.maxEntries) usage.over = 'entries';
      if (usage.over) return true;
    }
    return false;
  };
  let handle: fs.Dir;
  try {
    handle = await fs.promises.opendir(/*turbopackIgnore: true*/ here, { bufferSize: BATCH });
  } catch {
    // The folder is held open (even removed, it reads as empty): this failing means no /proc, not a folder gone.
    usage.over = 'unmeasured';
    return;
  }
  try {
    let batch: string[] = [];
    for await (const entry of handle) {
      batch.push(entry.name);
      // Never more in hand than the entries still allowed, so the walk's cost stays bounded by the cap.
      if (batch.length >= Math.min(BATCH, caps.maxEntries - usage.entries + 1)) {
        if (await tally(batch)) return;
        batch = [];
      }
    }
    if (await tally(batch)) return;
  } catch {
    usage.over = 'unmeasured';
    return;
  } finally {
    // Breaking out of `for await` closes the Dir already; closing twice throws.
    await handle.close().catch(() => {});
  }
  for (const name of folders) {
    if (depth >= MAX_DEPTH) {
      usage.over = 'depth';
      return;
    }
    let child: fs.promises.FileHandle;
    try {
      // O_NOFOLLOW: a folder swapped for a link since it was looked at is not followed.
      child = await fs.promises.open(/*turbopackIgnore: true*/ `${here}/${name}`, OPEN_FOLDER);
    } catch (error) {
      if (gone(error)) continue;
      usage.over = 'unmeasured';
      return;
    }
    try {
      await walk(child, depth + 1, usage, caps);
    } finally {
      await child.close().catch(() => {});
    }
    if (usage.over) return;
  }
}

export function usageMessage(usage: Usage, caps: UsageCaps): string {
  if (usage.over === 'depth')
    return `the workspace holds folders nested more than ${MAX_DEPTH} deep (the workspace limit)`;
  if (usage.over === 'unmeasured') {
    return `part of the workspace cannot be read to measure it, so it counts as over ${caps.bytesLabel ?? 'the workspace limit'}`;
  }
  return usage.over === 'entries'
    ? `the workspace holds more than ${caps.maxEntries} files and folders (the workspace limit)`
    : `the workspace holds more than ${caps.maxBytes} bytes (${caps.bytesLabel ?? 'the workspace limit'})`;
}
