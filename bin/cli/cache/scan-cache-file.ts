/**
 * The scan cache on disk, for fresh processes (the `skills` CLI): the parsed entries of a ScanCache written to one
 * file per set of roots and limits, read back with one file read. An entry is used only while its skill file has the
 * same path, size, mtime and inode (loadCandidates checks), so the cache can be stale but never wrong about a file
 * it would reuse. The file is versioned by the code that parsed it (code-version.ts): any other build (or edited
 * source) starts afresh. A missing, unreadable or foreign file is an empty cache; a failed write is ignored: it is only a cache.
 *
 * Layout: a header line (CacheHeader), then one line per entry (a PackedEntry as JSON). When an author edits one
 * skill of 10,000, the next save writes the 9,999 unchanged lines back as the bytes it read, and serialises only the
 * changed entry: serialising and encoding the whole cache again was most of such a run.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Limits } from '../../../server/limits';
import { type CacheEntry, createScanCache, type ScanCache } from '../../../server/skills/discovery/scan-cache';
import type { SkillRoot } from '../../../server/skills/types';
import { codeVersion } from './code-version';

interface CacheHeader {
  /** codeVersion(): the shape of an entry and the layout are this code's. */
  version: string;
  limits: string;
  /** Token counts by their input's sha256: loading the o200k table costs more than counting. */
  tokens?: Record<string, number>;
}

const NEWLINE = 0x0a;

/**
 * An entry as stored: `[key, file, size, mtimeMs, ino, diagnostics, skill, derived]`. A skill repeats most of its
 * entry (its file, size and mtime; its folder, root, scope and relDir are in the key; its frontmatter's name and
 * description are usually its own), and reading 10,000 skills is mostly parsing this file, so each repeated field
 * is stored as null and flagged in `derived` (a bit per field, below). The null keeps the field where it was, so
 * the unpacked skill has its keys in the same order (`list --json` prints them). Only exact copies are left out.
 */
type PackedEntry = [
  string,
  string,
  number,
  number,
  number,
  CacheEntry['diagnostics'],
  Record<string, unknown> | null,
  number,
];

/** The `derived` bits: the field, and where its value comes from on unpacking. */
const DERIVED = [
  ['dir', 0],
  ['root', 1],
  ['scope', 2],
  ['relDir', 3],
  ['file', 'file'],
  ['size', 'size'],
  ['mtimeMs', 'mtimeMs'],
] as const;
const FRONTMATTER_NAME = 1 << DERIVED.length;
const FRONTMATTER_DESCRIPTION = FRONTMATTER_NAME << 1;

function keyParts(key: string): string[] {
  // walk.ts: `${dir}\0${root.path}\0${root.scope}\0${relDir}`; a path holds no NUL.
  return key.split('\0');
}

export function packEntry(key: string, entry: CacheEntry): PackedEntry {
  const { skill } = entry;
  let derived = 0;
  let packed: Record<string, unknown> | null = null;
  if (skill) {
    const parts = keyParts(key);
    const copy: Record<string, unknown> = { ...skill };
    DERIVED.forEach(([field, from], bit) => {
      const value = typeof from === 'number' ? parts[from] : entry[from];
      if (value !== undefined && copy[field] === value) {
        copy[field] = null;
        derived |= 1 << bit;
      }
    });
    const fm = skill.frontmatter as Record<string, unknown> | undefined;
    if (fm && (fm.name === skill.name || fm.description === skill.description)) {
      const fmCopy = { ...fm };
      if (fm.name === skill.name) {
        fmCopy.name = null;
        derived |= FRONTMATTER_NAME;
      }
      if (fm.description === skill.description) {
        fmCopy.description = null;
        derived |= FRONTMATTER_DESCRIPTION;
      }
      copy.frontmatter = fmCopy;
    }
    packed = copy;
  }
  return [key, entry.file, entry.size, entry.mtimeMs, entry.ino, entry.diagnostics, packed, derived];
}

export function unpackEntry([key, file, size, mtimeMs, ino, diagnostics, packed, derived]: PackedEntry): [
  string,
  CacheEntry,
] {
  const entry: CacheEntry = { file, size, mtimeMs, ino, skill: null, diagnostics };
  if (packed) {
    const parts = keyParts(key);
    DERIVED.forEach(([field, from], bit) => {
      if (derived & (1 << bit)) packed[field] = typeof from === 'number' ? parts[from] : entry[from];
    });
    const fm = packed.frontmatter as Record<string, unknown>;
    if (derived & FRONTMATTER_NAME) fm.name = packed.name;
    if (derived & FRONTMATTER_DESCRIPTION) fm.description = packed.description;
    entry.skill = packed as unknown as CacheEntry['skill'];
  }
  return [key, entry];
}

/**
 * Writes `chunks` as `file` in the cache folder `dir` (created 0700), atomically: a temp file (0600), then a rename.
 * The chunks are written as they are, a batch at a time (writev), not joined into one buffer first: a
 * large answer (`list --json`) would be copied once more for nothing. A failed write is ignored: it is only a cache.
 */
export function writeCacheFile(dir: string, file: string, chunks: readonly Uint8Array[]): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const fd = fs.openSync(tmp, 'w', 0o600);
    try {
      // writev takes at most IOV_MAX (1024 on Linux) buffers a call. A short write (a full disk) is a failed one.
      for (let i = 0; i < chunks.length; i += 1024) {
        const batch = chunks.slice(i, i + 1024);
        if (fs.writevSync(fd, batch) !== batch.reduce((n, c) => n + c.byteLength, 0)) throw new Error('short write');
      }
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch {
    fs.rmSync(tmp, { force: true });
  }
}

/** `$SKILLCHAT_CACHE_DIR`, else `$XDG_CACHE_HOME/skillchat`, else `~/.cache/skillchat`. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SKILLCHAT_CACHE_DIR) return env.SKILLCHAT_CACHE_DIR;
  const base =
    env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(os.homedir(), '.cache');
  return path.join(base, 'skillchat');
}

export interface PersistedScanCache {
  cache: ScanCache;
  /**
   * Writes the cache back when the scan parsed anything or dropped entries, or a count was made, since the file was
   * read or last written (atomically: temp file, then rename).
   */
  save(): void;
  /**
   * A count that is a function of `input` alone (the catalog's tokens of its skills' names and descriptions), from
   * the file when counted before, else `count()` (kept for the next run).
   */
  tokens(input: string, count: () => Promise<number>): Promise<number>;
}

/** The cache file for these roots and limits in `dir`. */
export function scanCacheFile(dir: string, roots: readonly SkillRoot[], limits: Limits): string {
  const limitsKey = JSON.stringify(limits);
  const name = createHash('sha256').update(JSON.stringify({ roots, limitsKey })).digest('hex').slice(0, 24);
  return path.join(dir, `scan-${name}.json`);
}

/** Opens the cache file for these roots and limits in `dir` (one read). */
export function openScanCache(dir: string, roots: readonly SkillRoot[], limits: Limits): PersistedScanCache {
  const limitsKey = JSON.stringify(limits);
  const file = scanCacheFile(dir, roots, limits);
  const version = codeVersion();
  const cache = createScanCache();
  let tokens: Record<string, number> = {};
  /** Each entry read, and its line as read (newline included): written back as is while the entry is unchanged. */
  const lines = new Map<CacheEntry, Buffer>();
  try {
    const bytes = fs.readFileSync(file);
    let end = bytes.indexOf(NEWLINE);
    const header = JSON.parse(bytes.toString('utf8', 0, end)) as Partial<CacheHeader>;
    if (header.version === version && header.limits === limitsKey) {
      const entries = new Map<string, CacheEntry>();
      for (let start = end + 1; start < bytes.length; start = end + 1) {
        end = bytes.indexOf(NEWLINE, start);
        if (end === -1) throw new Error('truncated');
        const [key, entry] = unpackEntry(JSON.parse(bytes.toString('utf8', start, end)) as PackedEntry);
        entries.set(key, entry);
        lines.set(entry, bytes.subarray(start, end + 1));
      }
      cache.limits = limitsKey;
      cache.entries = entries;
      tokens = header.tokens ?? {};
    }
  } catch {
    // Missing or damaged: an empty cache.
    lines.clear();
  }
  /** The entries as in the file (read or last written). */
  let saved = cache.entries;
  let tokensChanged = false;
  const write = () => {
    const header: CacheHeader = { version, limits: limitsKey, tokens };
    const chunks: Uint8Array[] = [Buffer.from(`${JSON.stringify(header)}\n`)];
    for (const [key, entry] of cache.entries) {
      chunks.push(lines.get(entry) ?? Buffer.from(`${JSON.stringify(packEntry(key, entry))}\n`));
    }
    writeCacheFile(dir, file, chunks);
  };
  return {
    cache,
    save() {
      const entries = cache.entries;
      const same =
        cache.limits === limitsKey &&
        entries.size === saved.size &&
        [...entries].every(([key, entry]) => saved.get(key) === entry);
      if (!same || tokensChanged) write();
      saved = entries;
      tokensChanged = false;
    },
    async tokens(input, count) {
      const key = createHash('sha256').update(input).digest('hex');
      const known = tokens[key];
      if (known !== undefined) return known;
      const n = await count();
      // Only the latest catalog is worth keeping: the next run's skills are most likely these.
      tokens = { [key]: n };
      tokensChanged = true;
      return n;
    },
  };
}
