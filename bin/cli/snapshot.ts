/**
 * Answers kept between runs of `list` and `match` (in the scan cache's folder): what a command printed (or built)
 * for a walk of the skill roots, stored under the walk's fingerprint (server/skills/discovery.ts `walkRoots`: every
 * skill file's path, size, mtime and inode, what the walk found and said), the code's version and whatever else
 * the command's answer depends on (its options, the config). A run whose walk has the same fingerprint reuses the
 * answer without reading the scan cache or parsing anything; any change to a skill file, a folder, the config or
 * the code makes a new answer. One file per command and slot, replaced on each miss; a failed write is ignored.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { codeStamp, writeCacheFile } from '../../server/skills/scan-cache-file';

/** Bumped by hand when a payload's shape changes. */
const FORMAT = 1;

export interface Snapshot {
  /** The payload stored under this key, or null. */
  readonly hit: Buffer | null;
  /** Stores the payload, given whole or in parts (written one after the other, without joining them first). */
  save(payload: string | Uint8Array | readonly Uint8Array[]): void;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * `slot` names the file (a command and its roots: one answer kept per slot); `key` is everything the answer
 * depends on. Only the key's digest is stored.
 */
export function openSnapshot(dir: string, slot: string, key: string): Snapshot {
  const file = path.join(dir, `answer-${sha256(slot).slice(0, 24)}`);
  // The parser's code and the commands' (the same folder in the bundle, server/skills/ and bin/cli/ in the sources).
  const version = `${codeStamp()}\0${codeStamp(import.meta.dirname)}`;
  const header = Buffer.from(`${FORMAT} ${sha256(`${version}\0${key}`)}\n`);
  let hit: Buffer | null = null;
  try {
    // The header first: a stale answer (16 MB for `list --json` over 10,000 skills) is not read at all.
    const fd = fs.openSync(file, 'r');
    try {
      const head = Buffer.alloc(header.length);
      if (fs.readSync(fd, head, 0, head.length, 0) === head.length && head.equals(header)) {
        const body = Buffer.allocUnsafe(fs.fstatSync(fd).size - header.length);
        let read = 0;
        while (read < body.length) {
          const n = fs.readSync(fd, body, read, body.length - read, header.length + read);
          if (n === 0) break;
          read += n;
        }
        hit = body.subarray(0, read);
      }
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Missing or unreadable: no answer kept.
  }
  return {
    hit,
    save(payload) {
      const parts =
        typeof payload === 'string' ? [Buffer.from(payload)] : ArrayBuffer.isView(payload) ? [payload] : payload;
      writeCacheFile(dir, file, [header, ...parts]);
    },
  };
}
