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
import { codeStamp } from '../../server/skills/scan-cache-file';

/** Bumped by hand when a payload's shape changes. */
const FORMAT = 2;
/**
 * The header is padded to this length so that a payload starts 8-byte aligned in the file's buffer: the matcher's
 * index (server/skills/match-index.ts) is viewed in place as typed arrays instead of copying 4 MB first.
 */
const HEADER_LENGTH = 72;

export interface Snapshot {
  /** The payload stored under this key, or null. */
  readonly hit: Buffer | null;
  save(payload: string | Uint8Array): void;
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
  const stamp = `${FORMAT} ${sha256(`${version}\0${key}`)}`;
  const header = Buffer.from(`${stamp.padEnd(HEADER_LENGTH - 1)}\n`);
  let hit: Buffer | null = null;
  try {
    const bytes = fs.readFileSync(file);
    if (bytes.length >= header.length && bytes.subarray(0, header.length).equals(header)) {
      hit = bytes.subarray(header.length);
    }
  } catch {
    // Missing or unreadable: no answer kept.
  }
  return {
    hit,
    save(payload) {
      const tmp = `${file}.${process.pid}.tmp`;
      try {
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
        const fd = fs.openSync(tmp, 'w', 0o600);
        try {
          fs.writeSync(fd, header);
          if (typeof payload === 'string') fs.writeSync(fd, payload);
          else fs.writeSync(fd, payload);
        } finally {
          fs.closeSync(fd);
        }
        fs.renameSync(tmp, file);
      } catch {
        fs.rmSync(tmp, { force: true });
      }
    },
  };
}
