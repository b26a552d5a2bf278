/**
 * Copies a skill folder into memory for the script sandbox, so the sandbox never touches the host disk while a
 * script runs. The copy is a plain list of entries (folders, file bytes, relative links) that can be handed to a
 * worker thread, where it becomes just-bash's `InMemoryFs`.
 *
 * Why a copy and not just-bash's `OverlayFs` (measured with just-bash 3.4.2): `OverlayFs` refuses host symlinks,
 * but it reads on demand with blocking opens, so a FIFO in a skill folder parks a libuv thread per read; five
 * `cat fifo` runs (each stopped by `timeout`) left every later `fs.readFile` of the server hanging and the process
 * unable to exit. Here every file is opened once, up front, with `O_NONBLOCK | O_NOFOLLOW` and checked with
 * `fstat` before a byte is read (security.md, "Reading a file inside a skill directory").
 *
 * Policies, the same as `server/skills/resources.ts` where they overlap:
 * - Symlinks whose target stays inside the skill folder become in-memory symlinks (relative targets), so scripts
 *   see the same tree; links that lead outside, dangle or loop are left out. Host links are never read through.
 * - FIFOs, sockets and devices are left out; so are files over the per-file cap, files that would push the copy
 *   past the total cap, and anything past the entry or depth caps. Each omission is reported by relative path.
 * - Hard links are copied like any file (they cannot be told apart from a path; see resources.ts).
 * - Folder listings are by path (Node has no `openat`), so a folder swapped for a symlink during the walk could
 *   list an outside folder's names; its files are still refused, because each opened descriptor is checked.
 */
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../paths';
import { interpreterFor } from '../sandbox/interpreter';
import { readAtMost } from '../skills/resources';

export interface SnapshotLimits {
  /** Largest single file copied; larger ones are left out (a script's data, not truncated garbage). */
  maxFileBytes: number;
  /** Total bytes copied from one skill folder. */
  maxTotalBytes: number;
  /** Folder entries visited (files, folders, links, anything). */
  maxEntries: number;
  /** Folder nesting below the skill folder. */
  maxDepth: number;
}

export const DEFAULT_SNAPSHOT_LIMITS: SnapshotLimits = {
  maxFileBytes: 8 * 1024 * 1024,
  maxTotalBytes: 32 * 1024 * 1024,
  maxEntries: 10_000,
  maxDepth: 16,
};

export type OmitReason =
  | 'symlink-outside'
  | 'symlink-broken'
  | 'special-file'
  | 'too-large'
  | 'total-size-cap'
  | 'too-many-entries'
  | 'too-deep'
  | 'changed'
  | 'unreadable';

export interface OmittedEntry {
  /** Relative to the skill folder, posix separators. */
  path: string;
  reason: OmitReason;
}

/** One node of the copy; paths are absolute within the skill (`/scripts/run.sh`), parents listed first. */
export type SnapshotEntry =
  | { type: 'dir'; path: string }
  | { type: 'file'; path: string; data: Uint8Array; mode: number }
  /** `target` is relative to the link's folder and stays inside the skill. */
  | { type: 'symlink'; path: string; target: string };

export interface SkillSnapshot {
  entries: SnapshotEntry[];
  files: number;
  bytes: number;
  omitted: OmittedEntry[];
}

export type SnapshotResult = { ok: true; snapshot: SkillSnapshot } | { ok: false; error: string };

/** Relative path from the real root as a posix path, which is what the in-memory tree uses. */
function toPosix(rel: string): string {
  return rel.split(path.sep).join('/');
}

// Windows lacks both constants; OR-ing `undefined` would silently add nothing, so spell the fallback out.
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/**
 * Is the opened descriptor the file we meant? A folder on the way could have been swapped for a symlink between
 * listing and opening; `/proc/self/fd/N` names what was really opened. Without procfs, resolve again and compare
 * inodes (narrows the race; Node has no `openat`).
 */
async function descriptorIs(handle: FileHandle, expected: string, opened: fs.Stats): Promise<boolean> {
  if (process.platform === 'linux') {
    try {
      return (await fs.promises.readlink(`/proc/self/fd/${handle.fd}`)) === expected;
    } catch {
      // No procfs (some containers): fall through.
    }
  }
  try {
    if ((await fs.promises.realpath(expected)) !== expected) return false;
    const now = await fs.promises.stat(expected);
    return now.dev === opened.dev && now.ino === opened.ino;
  } catch {
    return false;
  }
}

type FileRead = { ok: true; data: Buffer; mode: number } | { ok: false; reason: OmitReason };

/** Reads one regular file, refusing anything that is not one, before reading. `budget` = bytes still allowed. */
async function readRegularFile(abs: string, maxFileBytes: number, budget: number): Promise<FileRead> {
  let handle: FileHandle;
  try {
    handle = await fs.promises.open(abs, OPEN_FLAGS);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? error.code : undefined;
    // ELOOP under O_NOFOLLOW: the entry became a symlink after it was listed.
    return { ok: false, reason: code === 'ELOOP' ? 'changed' : 'unreadable' };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { ok: false, reason: 'special-file' };
    if (!(await descriptorIs(handle, abs, stat))) return { ok: false, reason: 'changed' };
    if (stat.size > maxFileBytes) return { ok: false, reason: 'too-large' };
    if (stat.size > budget) return { ok: false, reason: 'total-size-cap' };
    // One byte past the smaller cap tells a file that grew since fstat from one that fits.
    const cap = Math.min(maxFileBytes, budget);
    const data = await readAtMost(handle, cap + 1);
    if (data.length > cap) return { ok: false, reason: data.length > maxFileBytes ? 'too-large' : 'total-size-cap' };
    return { ok: true, data, mode: stat.mode & 0o777 };
  } catch {
    return { ok: false, reason: 'unreadable' };
  } finally {
    await handle.close().catch(() => {});
  }
}

interface Walk {
  realRoot: string;
  limits: SnapshotLimits;
  entries: number;
  /** Set once the entry cap is hit so the omission is reported once, not per remaining entry. */
  stopped: boolean;
}

/**
 * Visits the skill folder without following symlinks. `visit` gets every entry (with its relative posix path) and
 * decides; folders are descended into after it returns. Shared by the copy and by `listSkillScripts`.
 */
async function walk(
  state: Walk,
  relDir: string,
  depth: number,
  visit: (entry: fs.Dirent, rel: string, abs: string) => Promise<void>,
  omit: (entry: OmittedEntry) => void,
): Promise<void> {
  const absDir = relDir === '' ? state.realRoot : path.join(state.realRoot, ...relDir.split('/'));
  let entries: fs.Dirent[];
  try {
    entries = await fs.promises.readdir(absDir, { withFileTypes: true });
  } catch {
    omit({ path: relDir || '.', reason: 'unreadable' });
    return;
  }
  // Sorted so the same folder always gives the same copy (and the same omissions at the caps).
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (state.stopped) return;
    const rel = relDir === '' ? entry.name : `${relDir}/${entry.name}`;
    if (++state.entries > state.limits.maxEntries) {
      state.stopped = true;
      omit({ path: rel, reason: 'too-many-entries' });
      return;
    }
    const abs = path.join(absDir, entry.name);
    await visit(entry, rel, abs);
    if (entry.isDirectory()) {
      if (depth + 1 > state.limits.maxDepth) omit({ path: rel, reason: 'too-deep' });
      else await walk(state, rel, depth + 1, visit, omit);
    }
  }
}

function resolveLimits(limits: Partial<SnapshotLimits> | undefined): SnapshotLimits {
  const resolved = { ...DEFAULT_SNAPSHOT_LIMITS, ...limits };
  for (const [key, value] of Object.entries(resolved)) {
    // A bad cap is a caller bug, not an expected problem.
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${key} must be a non-negative integer`);
  }
  return resolved;
}

async function realRootOf(dir: string): Promise<string | null> {
  try {
    const real = await fs.promises.realpath(dir);
    return (await fs.promises.stat(real)).isDirectory() ? real : null;
  } catch {
    return null;
  }
}

/**
 * Copies the skill folder at `dir` into memory, as entries rooted at `/`. `dir` must come from the registry.
 * Errors never name absolute paths.
 */
export async function snapshotSkill(dir: string, limits?: Partial<SnapshotLimits>): Promise<SnapshotResult> {
  const caps = resolveLimits(limits);
  const realRoot = await realRootOf(dir);
  if (!realRoot) {
    return { ok: false, error: 'the skill folder could not be read (it may have moved since the last scan)' };
  }

  const snapshot: SkillSnapshot = { entries: [], files: 0, bytes: 0, omitted: [] };
  const add = (entry: SnapshotEntry) => snapshot.entries.push(entry);
  const omit = (entry: OmittedEntry) => snapshot.omitted.push(entry);
  const state: Walk = { realRoot, limits: caps, entries: 0, stopped: false };

  await walk(
    state,
    '',
    0,
    async (entry, rel, abs) => {
      const virtual = `/${rel}`;
      if (entry.isDirectory()) {
        add({ type: 'dir', path: virtual });
      } else if (entry.isSymbolicLink()) {
        await copySymlink(realRoot, rel, abs, add, omit);
      } else if (entry.isFile()) {
        const read = await readRegularFile(abs, caps.maxFileBytes, caps.maxTotalBytes - snapshot.bytes);
        if (!read.ok) {
          omit({ path: rel, reason: read.reason });
          return;
        }
        // A fresh ArrayBuffer per file: small Buffers share Node's pool, and this one is handed to another thread.
        add({ type: 'file', path: virtual, data: new Uint8Array(read.data), mode: read.mode });
        snapshot.files++;
        snapshot.bytes += read.data.length;
      } else {
        omit({ path: rel, reason: 'special-file' });
      }
    },
    omit,
  );
  return { ok: true, snapshot };
}

/**
 * Records an inside-pointing link as a link with a relative target, so it resolves inside the sandbox's copy
 * wherever the copy is mounted. The target's bytes are copied when the walk reaches the target
 * itself (targets left out make the link dangle, which reads as "no such file").
 */
async function copySymlink(
  realRoot: string,
  rel: string,
  abs: string,
  add: (entry: SnapshotEntry) => void,
  omit: (entry: OmittedEntry) => void,
): Promise<void> {
  let real: string;
  try {
    real = await fs.promises.realpath(abs);
  } catch {
    omit({ path: rel, reason: 'symlink-broken' });
    return;
  }
  if (!isInside(realRoot, real)) {
    omit({ path: rel, reason: 'symlink-outside' });
    return;
  }
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(real);
  } catch {
    omit({ path: rel, reason: 'symlink-broken' });
    return;
  }
  if (!stat.isFile() && !stat.isDirectory()) {
    omit({ path: rel, reason: 'special-file' });
    return;
  }
  const targetRel = toPosix(path.relative(realRoot, real));
  const target = path.posix.relative(path.posix.dirname(`/${rel}`), `/${targetRel}`) || '.';
  add({ type: 'symlink', path: `/${rel}`, target });
}

/** Extensions the sandbox knows how to run, and with what. */
export const SCRIPT_INTERPRETERS = { '.sh': 'bash', '.bash': 'bash', '.py': 'python3' } as const;

export type ScriptExtension = keyof typeof SCRIPT_INTERPRETERS;

export function scriptInterpreter(relPath: string): (typeof SCRIPT_INTERPRETERS)[ScriptExtension] | undefined {
  const ext = path.posix.extname(relPath).toLowerCase();
  return Object.hasOwn(SCRIPT_INTERPRETERS, ext) ? SCRIPT_INTERPRETERS[ext as ScriptExtension] : undefined;
}

/**
 * Regular files the sandbox can run (`.sh`, `.bash`, `.py`), anywhere in the skill folder, relative posix paths,
 * sorted. Symlinks are not listed (a link to a script inside is the same script; a link out is never run).
 * Bounded by the snapshot's entry and depth caps. A missing folder has no scripts.
 */
export async function listSkillScripts(skillDir: string, options?: { limit?: number }): Promise<string[]> {
  const realRoot = await realRootOf(skillDir);
  if (!realRoot) return [];
  const limit = options?.limit ?? Number.POSITIVE_INFINITY;
  const found: string[] = [];
  const state: Walk = { realRoot, limits: DEFAULT_SNAPSHOT_LIMITS, entries: 0, stopped: false };
  await walk(
    state,
    '',
    0,
    async (entry, rel) => {
      // Any script some backend can run (bwrap adds .js/.mjs/.cjs to just-bash's .sh/.bash/.py).
      if (entry.isFile() && interpreterFor(rel, '')) {
        found.push(rel);
        if (found.length >= limit) state.stopped = true;
      }
    },
    () => {},
  );
  return found.sort();
}

/** Whether the skill ships anything the sandbox can run; stops at the first script found. */
export async function skillHasScripts(skillDir: string): Promise<boolean> {
  return (await listSkillScripts(skillDir, { limit: 1 })).length > 0;
}
