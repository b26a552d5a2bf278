/**
 * Answers kept between runs of `list` and `match` (in the scan cache's folder): what a command printed (or built)
 * for a walk of the skill roots, stored under the walk's fingerprint (server/skills/discovery/discovery.ts
 * `walkRoots`: every skill file's path, size, mtime and inode, what the walk found and said), the code's version and
 * whatever else the command's answer depends on (its options, the config). A run whose walk has the same
 * fingerprint reuses the answer without reading the scan cache or parsing anything; any change to a skill file, a
 * folder, the config or the code makes a new answer. One file per command and slot, replaced on each miss; a failed
 * write is ignored. What depends on the skills' contents alone (the matcher's index, on their names and
 * descriptions) is kept under a digest of those instead (bin/cli/app.ts `kept`), so a walk that changed can still
 * find it.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { codeVersion } from './code-version';
import { writeCacheFile } from './scan-cache-file';

export interface KeptAnswer {
  /** The payload stored under this key (read on first use), or null. */
  readonly hit: Buffer | null;
  /** Bytes of the payload stored under this key; -1 when none is. */
  readonly size: number;
  /** Payload bytes [start, end) (fewer at its end; none when no payload is stored). */
  read(start: number, end: number): Buffer;
  /**
   * Payload bytes [start, end) to `write`, a piece at a time through one reused buffer: a 16 MB answer is printed
   * without being held (page faults on fresh memory are a visible share of such a run). `write` returns false when it
   * keeps the piece: the next one then gets a buffer of its own.
   */
  copy(start: number, end: number, write: (piece: Uint8Array) => boolean): void;
  /** Stores the payload, given whole or in parts (written one after the other, without joining them first). */
  save(payload: string | Uint8Array | readonly Uint8Array[]): void;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * `slot` names the file (a command and its roots: one answer kept per slot); `key` is everything the answer
 * depends on. Only the key's digest is stored.
 */
export function openKeptAnswer(dir: string, slot: string, key: string): KeptAnswer {
  const file = path.join(dir, `answer-${sha256(slot).slice(0, 24)}`);
  // The code's version (code-version.ts) covers a payload's shape: the parser's code and the commands' are in it.
  const header = Buffer.from(`${sha256(`${codeVersion()}\0${key}`)}\n`);
  // The header first: a stale answer (16 MB for `list --json` over 10,000 skills) is not read at all. A kept one's
  // file stays open, so what is read later is this file even if another run replaces it meanwhile.
  let fd = -1;
  let size = -1;
  try {
    fd = fs.openSync(file, 'r');
    const head = Buffer.alloc(header.length);
    if (fs.readSync(fd, head, 0, head.length, 0) === head.length && head.equals(header)) {
      size = fs.fstatSync(fd).size - header.length;
    } else {
      fs.closeSync(fd);
      fd = -1;
    }
  } catch {
    // Missing or unreadable: no answer kept.
    if (fd !== -1) fs.closeSync(fd);
    fd = -1;
  }
  /** Reads payload bytes [start, end) into the start of `buffer`; how many were read (fewer at the file's end). */
  const readInto = (buffer: Buffer, start: number, end: number) => {
    let read = 0;
    while (start + read < end) {
      const n = fs.readSync(fd, buffer, read, end - start - read, header.length + start + read);
      if (n === 0) break;
      read += n;
    }
    return read;
  };
  const read = (start: number, end: number) => {
    // A buffer of its own (allocUnsafeSlow: never a slice of Node's pool), so the bytes start 8-byte aligned: the
    // matcher's index (server/skills/catalog/match-index.ts) is viewed in place as typed arrays, not copied.
    const bytes = Buffer.allocUnsafeSlow(Math.max(end - start, 0));
    return bytes.subarray(0, readInto(bytes, start, end));
  };
  let hit: Buffer | undefined;
  return {
    get hit() {
      if (fd === -1) return null;
      hit ??= read(0, size);
      return hit;
    },
    read: (start, end) => (fd === -1 ? Buffer.alloc(0) : read(start, end)),
    size,
    copy(start, end, write) {
      if (fd === -1) return;
      const length = Math.min(1 << 20, Math.max(end - start, 0));
      let piece = Buffer.allocUnsafe(length);
      for (let at = start; at < end; ) {
        const n = readInto(piece, at, Math.min(end, at + piece.length));
        if (n === 0) break;
        if (!write(piece.subarray(0, n))) piece = Buffer.allocUnsafe(length);
        at += n;
      }
    },
    save(payload) {
      const parts =
        typeof payload === 'string' ? [Buffer.from(payload)] : ArrayBuffer.isView(payload) ? [payload] : payload;
      writeCacheFile(dir, file, [header, ...parts]);
    },
  };
}
