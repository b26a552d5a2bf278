/**
 * Zip (and `.skill`, which is a zip) archives through yauzl 3: the central directory gives every entry's name,
 * sizes and external attributes (where Unix tools keep the file type, so symlinks and devices are visible) before a
 * byte is inflated, and `validateEntrySizes` stops an entry whose data inflates past its declared size. Names are
 * decoded here rather than by yauzl, which would stop at the first bad name: the operator gets every reason at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as yauzl from 'yauzl';
import { type ArchiveEntry, type EntryKind, InstallError, problem } from './problems';

/** macOS Finder's resource-fork copies: noise, never part of a skill. */
const IGNORED_PREFIX = '__MACOSX/';

const S_IFMT = 0o170000;
const UNIX_HOST = 3;

function kindOf(entry: yauzl.Entry, name: string): EntryKind {
  const type = (entry.externalFileAttributes >>> 16) & S_IFMT;
  if (entry.versionMadeBy >> 8 === UNIX_HOST && type !== 0) {
    if (type === 0o120000) return 'symlink';
    if (type === 0o020000 || type === 0o060000) return 'device';
    if (type === 0o010000 || type === 0o140000) return 'special';
    if (type === 0o040000) return 'directory';
  }
  // MS-DOS attribute 0x10 is "directory"; a trailing slash is the zip convention for one.
  if (name.endsWith('/') || (entry.externalFileAttributes & 0x10) !== 0) return 'directory';
  return 'file';
}

export interface ZipListing {
  zipfile: yauzl.ZipFile;
  entries: Array<ArchiveEntry & { raw: yauzl.Entry }>;
  /** Entries past the listing cap, counted but not kept. */
  truncated: boolean;
  /** Every entry the central directory declares (yauzl reads exactly that many), `__MACOSX/` ones included. */
  total: number;
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(
      file,
      { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true, strictFileNames: true },
      (error, zipfile) => (error ? reject(error) : resolve(zipfile)),
    );
  });
}

/** Reads the central directory. At most `cap` entries are kept (the rest only counted), so a million-entry zip costs little. */
export async function listZip(file: string, cap: number): Promise<ZipListing> {
  let zipfile: yauzl.ZipFile;
  try {
    zipfile = await openZip(file);
  } catch (error) {
    throw new InstallError('invalid', [
      problem('not-a-zip', `Not a readable zip archive: ${(error as Error).message}`),
    ]);
  }
  const entries: ZipListing['entries'] = [];
  let truncated = false;
  try {
    await new Promise<void>((resolve, reject) => {
      zipfile.on('entry', (raw: yauzl.Entry) => {
        const name = yauzl.getFileNameLowLevel(raw.generalPurposeBitFlag, raw.fileNameRaw, raw.extraFields, true);
        if (!name.startsWith(IGNORED_PREFIX)) {
          if (entries.length >= cap) {
            truncated = true;
            resolve();
            return;
          }
          const kind = kindOf(raw, name);
          if (raw.isEncrypted()) {
            reject(new InstallError('invalid', [problem('encrypted', 'Encrypted entries are not supported', name)]));
            return;
          }
          entries.push({ path: name, kind, size: raw.uncompressedSize, compressedSize: raw.compressedSize, raw });
        }
        zipfile.readEntry();
      });
      zipfile.once('end', () => resolve());
      zipfile.once('error', reject);
      zipfile.readEntry();
    });
  } catch (error) {
    zipfile.close();
    if (error instanceof InstallError) throw error;
    throw new InstallError('invalid', [
      problem('not-a-zip', `The zip archive is damaged: ${(error as Error).message}`),
    ]);
  }
  return { zipfile, entries, truncated, total: zipfile.entryCount };
}

/** Counts bytes through the stream and stops past `limit`: the second line of defence after the declared sizes. */
function byteCap(limit: number, counter: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      counter.bytes += chunk.length;
      if (counter.bytes > limit) callback(new Error(`unpacked more than ${limit} bytes`));
      else callback(null, chunk);
    },
  });
}

/**
 * Unpacks checked entries into `dest` (an empty staging folder). Files are created exclusively (`wx`) with mode
 * 0644 whatever the archive says: nothing unpacked is executable or setuid.
 */
export async function extractZip(listing: ZipListing, dest: string, maxBytes: number): Promise<void> {
  const counter = { bytes: 0 };
  try {
    for (const entry of listing.entries) {
      const target = path.resolve(/*turbopackIgnore: true*/ dest, entry.path);
      // checkEntries already refused `..` and absolute names; this keeps extraction safe on its own.
      if (target !== dest && !target.startsWith(dest + path.sep)) {
        throw new InstallError('invalid', [problem('parent-path', 'Escapes the archive folder', entry.path)]);
      }
      if (entry.kind === 'directory') {
        await fs.promises.mkdir(target, { recursive: true, mode: 0o755 });
        continue;
      }
      await fs.promises.mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
      const stream = await listing.zipfile.openReadStreamPromise(entry.raw);
      await pipeline(stream, byteCap(maxBytes, counter), fs.createWriteStream(target, { flags: 'wx', mode: 0o644 }));
    }
  } catch (error) {
    if (error instanceof InstallError) throw error;
    throw new InstallError('invalid', [problem('unpack-failed', `Could not unpack: ${(error as Error).message}`)]);
  } finally {
    listing.zipfile.close();
  }
}
