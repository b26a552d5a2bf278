/**
 * Watching the skill roots for live reload: file events -> relevant paths -> debounce -> `onChange(paths)`, which
 * the registry turns into an incremental rescan (discovery's `changed`).
 *
 * What is watched is exactly what the last scan read, each folder on its own at depth 0 (chokidar), not whole trees:
 * - every root and every folder between a root and its skills: a skill folder added or removed there shows up;
 * - every skill folder, for its SKILL.md only: resources (references/, scripts/, ...) are never watched, since
 *   activation reads them fresh anyway, and 10,000 skills with a few resource folders each would cost tens of
 *   thousands of watches for nothing;
 * - for a root that does not exist (most default roots: `.agents/skills` in every folder up to `/`), its nearest
 *   existing ancestor, for the one entry on the way to the root. One cheap watch per missing root instead of
 *   polling; when the root appears, the rescan walks it and the next update watches it properly.
 *
 * The target lists come from the registry after each scan (`update`), so the watch set follows the tree.
 */
import path from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
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
  let skillFolders = new Set<string>();
  let watched = new Set<string>();
  /** Watched ancestor -> the missing roots it stands in for. */
  let lookouts = new Map<string, string[]>();
  let lookoutKey = '';

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
    pending.add(p);
    const now = Date.now();
    if (!timer) firstAt = now;
    else clearTimeout(timer);
    timer = setTimeout(flush, Math.max(0, Math.min(debounceMs, firstAt + maxWaitMs - now)));
  };
  const onError = (error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error)));

  const common = {
    depth: 0,
    ignoreInitial: true,
    followSymlinks: true,
    // A forgotten watcher must never keep a process (a CLI, a test worker) alive.
    persistent: false,
    ignorePermissionErrors: true,
  } as const;

  // The tree: per-file watches only for skill files; resource folders and files are never descended into.
  const tree: FSWatcher = watch([], {
    ...common,
    ignored: (p, stats) => {
      if (watched.has(p)) return false;
      const parent = path.dirname(p);
      if (skillFolders.has(parent)) return !isSkillFile(p);
      if (folders.has(parent)) return skippedFolder(path.basename(p)) || (!!stats?.isFile() && !isSkillFile(p));
      return false;
    },
  });
  tree.on('all', (event, p) => {
    if (isSkillFile(p)) return note(p);
    const parent = path.dirname(p);
    if ((event === 'addDir' || event === 'unlinkDir') && folders.has(parent) && !skippedFolder(path.basename(p))) {
      return note(p);
    }
    if (event === 'unlinkDir' && (folders.has(p) || skillFolders.has(p))) return note(p);
  });
  tree.on('error', onError);

  // Lookouts live in their own watcher, rebuilt when they change: chokidar's `unwatch` ignores everything below
  // the path from then on, and a lookout is often an ancestor of a watched root (the app folder above `.skills`).
  let lookout: FSWatcher | null = null;
  const watchLookouts = (): Promise<void> => {
    const old = lookout;
    lookout = null;
    void old?.close();
    if (lookouts.size === 0) return Promise.resolve();
    const current = lookouts;
    const w = watch([...current.keys()], {
      ...common,
      // A lookout can be a busy folder (the app folder, `/`): only the entry on the way to a missing root counts.
      ignored: (p) => !current.has(p) && !towardMissing(p),
    });
    w.on('all', (_event, p) => {
      if (towardMissing(p)) note(p);
    });
    w.on('error', onError);
    lookout = w;
    return new Promise<void>((resolve) => w.once('ready', () => resolve()));
  };
  let lookoutsReady: Promise<void> = Promise.resolve();

  function update(targets: WatchTargets): string[] {
    folders = new Set(targets.folders);
    skillFolders = new Set(targets.skillFolders);
    const next = new Set<string>([...folders, ...skillFolders]);
    const added = [...next].filter((p) => !watched.has(p));
    const removed = [...watched].filter((p) => !next.has(p));
    watched = next;
    if (removed.length > 0) tree.unwatch(removed);
    if (added.length > 0) tree.add(added);

    const nextLookouts = new Map<string, string[]>();
    for (const root of targets.missingRoots) {
      const at = nearestExisting(root, options.exists);
      nextLookouts.set(at, [...(nextLookouts.get(at) ?? []), root]);
    }
    const key = JSON.stringify([...nextLookouts]);
    lookouts = nextLookouts;
    if (key !== lookoutKey) {
      lookoutKey = key;
      lookoutsReady = watchLookouts();
    }
    return added;
  }

  const treeReady = new Promise<void>((resolve) => tree.once('ready', () => resolve()));
  update(initial);
  if (watched.size === 0) tree.emit('ready');

  return {
    ready: Promise.all([treeReady, lookoutsReady]).then(() => {}),
    update,
    size: () => watched.size + lookouts.size,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await Promise.all([tree.close(), lookout?.close()]);
    },
  };
}
