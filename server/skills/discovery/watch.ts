/**
 * Watching the skill roots for live reload: file events -> relevant paths -> debounce -> `onChange(paths)`, which
 * the registry turns into an incremental rescan (discovery's `changed`).
 *
 * What is watched is exactly what the last scan read, each folder on its own (`fs.watch`, one inotify watch per
 * folder), not whole trees:
 * - every root and every folder between a root and its skills: a skill folder added or removed there shows up;
 * - every skill folder, for its SKILL.md only: resources (references/, scripts/, ...) are never watched, since
 *   activation reads them fresh anyway, and 10,000 skills with a few resource folders each would cost tens of
 *   thousands of watches for nothing;
 * - for a root that does not exist (most default roots: `.agents/skills` in every folder up to `/`), its nearest
 *   existing ancestor, for the one entry on the way to the root. One cheap watch per missing root instead of
 *   polling; when the root appears, the rescan walks it and the next update watches it properly.
 *
 * The target lists come from the registry after each scan (`update`), so the watch set follows the tree.
 *
 * Why `fs.watch` and not chokidar: chokidar keeps a listing, stats and streams per watched folder; over 10,000 skill
 * folders that is many times the memory of the bare watches, and seconds of set-up where they take a moment. What it
 * added here is done below in a few lines: an event names an entry of a watched folder, and whether that entry
 * matters (a skill file, a folder appearing or going) is decided by its name and, for folders, one stat.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SKILL_FILE_NAMES } from '../load/skill-file';

export interface WatchTargets {
  /** Roots and the folders between them and their skills. */
  folders: readonly string[];
  /** Skill folders (only their skill file is watched). */
  skillFolders: readonly string[];
  /** Roots that do not exist (or are not folders) yet. */
  missingRoots: readonly string[];
}

export interface WatchOptions {
  /** Called with the changed paths once events have settled for `debounceMs`. */
  onChange: (paths: string[]) => void;
  /** A watcher error (e.g. ENOSPC: out of inotify watches). Events may have been missed: rescan fully. */
  onError?: (error: Error) => void;
  /** Quiet time before `onChange` (default 200 ms). */
  debounceMs?: number;
  /** Longest delay under a steady stream of events (default 1 s). */
  maxWaitMs?: number;
}

export interface SkillWatcher {
  /** Resolves when the initial targets are being watched. */
  ready: Promise<void>;
  /** Replaces the targets (after a rescan). Returns the folders newly watched. */
  update(targets: WatchTargets): string[];
  /** Paths watched right now (for tests and the admin page). */
  size(): number;
  close(): Promise<void>;
}

const SKILL_FILES = new Set<string>(SKILL_FILE_NAMES.map((n) => n.toLowerCase()));

function isSkillFile(p: string): boolean {
  return SKILL_FILES.has(path.basename(p).toLowerCase());
}

function skippedFolder(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

/** The nearest existing ancestor a missing root can be watched from; the caller checks existence. */
export function nearestExisting(p: string, exists: (dir: string) => boolean): string {
  let dir = path.dirname(p);
  while (!exists(dir)) {
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return dir;
}

export function watchSkillRoots(
  initial: WatchTargets,
  options: WatchOptions & { exists: (dir: string) => boolean },
): SkillWatcher {
  const debounceMs = options.debounceMs ?? 200;
  const maxWaitMs = options.maxWaitMs ?? 1000;

  let folders = new Set<string>();
  /** Folder -> its watch (null while queued, or when watching it failed: not retried until it leaves the targets). */
  const watched = new Map<string, fs.FSWatcher | null>();
  /** Watched ancestor -> the missing roots it stands in for. */
  let lookouts = new Map<string, string[]>();
  let lookoutKey = '';
  let lookoutWatches: fs.FSWatcher[] = [];

  const towardMissing = (p: string): boolean => {
    const waiting = lookouts.get(path.dirname(p));
    return !!waiting?.some((root) => root === p || root.startsWith(p + path.sep));
  };

  let pending = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let firstAt = 0;
  let closed = false;
  const flush = () => {
    timer = null;
    const paths = [...pending];
    pending = new Set();
    if (paths.length > 0 && !closed) options.onChange(paths);
  };
  const note = (p: string) => {
    if (closed) return;
    pending.add(p);
    const now = Date.now();
    if (!timer) firstAt = now;
    else clearTimeout(timer);
    timer = setTimeout(flush, Math.max(0, Math.min(debounceMs, firstAt + maxWaitMs - now)));
  };
  const onError = (error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error)));

  const kindOf = (p: string): 'dir' | 'file' | null => {
    try {
      return fs.statSync(p).isDirectory() ? 'dir' : 'file';
    } catch {
      return null;
    }
  };

  /** An event in watched folder `dir` about its entry `name` (null: unknown, so the folder itself). */
  const onEvent = (dir: string, name: string | null) => {
    if (name === null) return note(dir);
    const p = path.join(dir, name);
    if (isSkillFile(p)) return note(p);
    // A folder that went away (its own watch ends with it): noted, and watched again if it comes back.
    if (kindOf(dir) !== 'dir') {
      unwatch(dir);
      return note(dir);
    }
    // In a root or a folder on the way to skills, a folder appearing or going may add or remove skills; files
    // there, and anything inside a skill folder but its skill file, are resources.
    if (!folders.has(dir) || skippedFolder(name)) return;
    const kind = kindOf(p);
    if (kind === 'dir' || (kind === null && watched.has(p))) note(p);
  };

  const unwatch = (dir: string) => {
    watched.get(dir)?.close();
    watched.delete(dir);
  };

  // Set up in slices, so thousands of watches do not hold the thread in one go.
  const SLICE = 500;
  let queue: string[] = [];
  let draining: Promise<void> | null = null;
  // Every watch shares two listeners, which find the folder by the watch: two closures (and their scope) per folder
  // add up over 10,000 skill folders.
  const folderOf = new WeakMap<fs.FSWatcher, string>();
  function onWatchEvent(this: fs.FSWatcher, _event: string, name: string | null) {
    const dir = folderOf.get(this);
    if (dir !== undefined) onEvent(dir, name);
  }
  function onWatchError(this: fs.FSWatcher) {
    const dir = folderOf.get(this);
    if (dir === undefined) return;
    // The folder went away, or was replaced: the rescan decides.
    unwatch(dir);
    note(dir);
  }
  const watchOptions = { persistent: false };
  const watchOne = (dir: string): fs.FSWatcher | null => {
    try {
      // A forgotten watcher must never keep a process (a CLI, a test worker) alive.
      const w = fs.watch(dir, watchOptions, onWatchEvent);
      folderOf.set(w, dir);
      w.on('error', onWatchError);
      return w;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Gone between the scan and now: the rescan it triggers drops it.
      if (code === 'ENOENT' || code === 'ENOTDIR') note(dir);
      // Out of inotify watches (ENOSPC) and the like: say so once per slice.
      else throw error;
      return null;
    }
  };
  const watchQueued = async () => {
    while (queue.length > 0 && !closed) {
      const slice = queue.splice(0, SLICE);
      let failed: unknown = null;
      for (const dir of slice) {
        if (!watched.has(dir) || watched.get(dir)) continue;
        try {
          watched.set(dir, watchOne(dir));
        } catch (error) {
          failed ??= error;
        }
      }
      if (failed) onError(failed);
      if (queue.length > 0) await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const drain = (): Promise<void> => {
    draining ??= watchQueued().finally(() => {
      draining = null;
      // Queued by an update that came as the last slice finished.
      if (queue.length > 0 && !closed) void drain();
    });
    return draining;
  };

  const watchLookouts = () => {
    for (const w of lookoutWatches) w.close();
    lookoutWatches = [];
    for (const dir of lookouts.keys()) {
      try {
        // A lookout can be a busy folder (the app folder, `/`): only the entry on the way to a missing root counts.
        const w = fs.watch(dir, { persistent: false }, (_event, name) => {
          const p = name === null ? dir : path.join(dir, name);
          if (towardMissing(p)) note(p);
        });
        w.on('error', onError);
        lookoutWatches.push(w);
      } catch (error) {
        onError(error);
      }
    }
  };

  function update(targets: WatchTargets): string[] {
    folders = new Set(targets.folders);
    const next = new Set<string>([...folders, ...targets.skillFolders]);
    const added = [...next].filter((p) => !watched.has(p));
    for (const p of [...watched.keys()]) if (!next.has(p)) unwatch(p);
    for (const p of added) watched.set(p, null);
    queue = [...queue.filter((p) => watched.has(p)), ...added];

    const nextLookouts = new Map<string, string[]>();
    for (const root of targets.missingRoots) {
      const at = nearestExisting(root, options.exists);
      nextLookouts.set(at, [...(nextLookouts.get(at) ?? []), root]);
    }
    const key = JSON.stringify([...nextLookouts]);
    lookouts = nextLookouts;
    if (key !== lookoutKey) {
      lookoutKey = key;
      watchLookouts();
    }
    void drain();
    return added;
  }

  update(initial);

  return {
    ready: drain(),
    update,
    size: () => watched.size + lookouts.size,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await draining;
      for (const w of watched.values()) w?.close();
      watched.clear();
      for (const w of lookoutWatches) w.close();
      lookoutWatches = [];
    },
  };
}
