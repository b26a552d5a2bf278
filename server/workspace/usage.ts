/**
 * How much of the disk a folder uses, measured without trusting it: links are never followed (lstat only), folders
 * are read as streams (`opendir`, so a folder of a million names is not listed into memory at once), and the walk
 * stops as soon as either cap is passed, so its cost is bounded by the caps, not by what a script made.
 *
 * A file counts as the larger of its length and its allocated blocks: a million one-byte files fill a disk through
 * their blocks, and a sparse file is charged for its length (RLIMIT_FSIZE bounds that length anyway).
 */
import fs from 'node:fs';
import path from 'node:path';

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
  /** Which cap was passed (the walk stopped there, so `bytes`/`entries` are lower bounds), or null. */
  over: 'bytes' | 'entries' | null;
}

function charge(stat: fs.Stats): number {
  return Math.max(stat.size, stat.blocks * 512);
}

/** lstat calls in flight at once: one at a time, a walk of a large folder is mostly waiting on promises. */
const BATCH = 128;

export async function measureTree(dir: string, caps: UsageCaps): Promise<Usage> {
  const usage: Usage = { bytes: 0, entries: 0, over: null };
  const pending = [dir];
  // Returns true once a cap is passed.
  const tally = async (paths: string[]): Promise<boolean> => {
    const stats = await Promise.all(paths.map((p) => fs.promises.lstat(/*turbopackIgnore: true*/ p).catch(() => null)));
    for (const [i, full] of paths.entries()) {
      const stat = stats[i];
      usage.entries++;
      if (stat) usage.bytes += charge(stat);
      if (stat?.isDirectory()) pending.push(full);
      if (usage.bytes > caps.maxBytes) usage.over = 'bytes';
      else if (usage.entries > caps.maxEntries) usage.over = 'entries';
      if (usage.over) return true;
    }
    return false;
  };
  while (pending.length > 0) {
    const current = pending.pop()!;
    let handle: fs.Dir;
    try {
      handle = await fs.promises.opendir(/*turbopackIgnore: true*/ current, { bufferSize: BATCH });
    } catch {
      continue; // gone, or not a folder any more: whatever is left is counted by the next measurement
    }
    try {
      let batch: string[] = [];
      for await (const entry of handle) {
        batch.push(path.join(/*turbopackIgnore: true*/ current, entry.name));
        // Never more in hand than the entries still allowed, so the walk's cost stays bounded by the cap.
        if (batch.length >= Math.min(BATCH, caps.maxEntries - usage.entries + 1)) {
          if (await tally(batch)) return usage;
          batch = [];
        }
      }
      if (await tally(batch)) return usage;
    } finally {
      // Breaking out of `for await` closes the Dir already; closing twice throws.
      await handle.close().catch(() => {});
    }
  }
  return usage;
}

export function usageMessage(usage: Usage, caps: UsageCaps): string {
  return usage.over === 'entries'
    ? `the workspace holds more than ${caps.maxEntries} files and folders (the workspace limit)`
    : `the workspace holds more than ${caps.maxBytes} bytes (${caps.bytesLabel ?? 'the workspace limit'})`;
}
