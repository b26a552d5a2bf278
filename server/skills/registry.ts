/**
 * The in-memory skill set the app serves from: one scan on first use, then the same result until `rescan()` or,
 * with `startWatching()`, until a skill file or folder changes (live reload). The composition root (server/app.ts)
 * holds the app's one registry, on `globalThis`, so Next's dev server, which re-evaluates modules on every edit,
 * does not rescan (and lose the scan cache) on each reload.
 *
 * Live reload: watch.ts reports changed paths, debounced; the registry rescans incrementally (discovery's
 * `changed`: only the folders those paths are in are read again, only changed skill files re-parsed), swaps in the
 * new result, and points the watcher at the new tree. New, edited and removed skills reach the catalog, the slash
 * menu and the admin page on their next `current()`. A skill whose edit breaks it (bad YAML, no description) is
 * dropped with its error diagnostic until it is fixed: no last good copy is kept, because activation reads the file
 * as it is now, and a catalog entry for a file that no longer loads would promise what activation cannot deliver.
 */
import fs from 'node:fs';
import type { AppConfig } from '../config';
import { KeptMap } from '../kept-map';
import { createMatcher, type Matcher, matcherInput } from './catalog/match';
import { createScanCache, discoverSkills, type SkillLoader, scannedFolders } from './discovery/discovery';
import { ownFolders } from './discovery/own-folders';
import { type SkillWatcher, watchSkillRoots } from './discovery/watch';
import { compareNames } from './name-order';
import { type ExtraSkillSource, withSources } from './sources';
import type { Diagnostic, DiscoveryResult, Skill } from './types';

export interface WatchStartOptions {
  /** Quiet time before a rescan (default 200 ms). */
  debounceMs?: number;
}

export interface SkillRegistry {
  readonly config: AppConfig;
  /** The latest scan; scans on first call. */
  current(): Promise<DiscoveryResult>;
  /** Scans again, re-parsing only changed skill files. Concurrent calls share one scan. */
  rescan(): Promise<DiscoveryResult>;
  get(name: string): Promise<Skill | undefined>;
  /**
   * Matcher over the current skills: built with each scan (a turn or a search right after it finds it ready), again
   * only when names or descriptions changed.
   */
  matcher(): Promise<Matcher>;
  /**
   * Matcher over the current skills and `extra` (a person's own skills, whose names the current ones do not take):
   * kept per extra's names and descriptions until the current skills' matcher changes, so a person's turns do not
   * each index every installed skill again.
   */
  matcherWith(extra: readonly Skill[]): Promise<Matcher>;
  /** Watches the roots and rescans on change. Resolves once the watcher is set up. No-op when already watching. */
  startWatching(options?: WatchStartOptions): Promise<void>;
  stopWatching(): Promise<void>;
  isWatching(): boolean;
  /** For the admin page: whether watching, how many paths, and the last watcher error. */
  watchStatus(): { watching: boolean; paths: number; error: string | null };
  /** Called after every scan that replaced the result (rescan or live reload). Returns an unsubscribe function. */
  subscribe(listener: (result: DiscoveryResult) => void): () => void;
  /** Adds skills that are not found in folders (an MCP server's, sources.ts); the result follows its changes. */
  addSource(source: ExtraSkillSource): void;
}

export interface SkillRegistryOptions {
  /** The skill loader; tests inject a counting wrapper. */
  load?: SkillLoader;
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function watchDiagnostic(message: string): Diagnostic {
  return {
    severity: 'warning',
    code: 'watch-failed',
    message: `Watching the skill roots failed (${message}); changes may not show until the next rescan.`,
    hint: 'On Linux, raise fs.inotify.max_user_watches, or press Rescan after changing skills.',
  };
}

/** People whose own skills' matchers are kept at once (the rest are built again when they next ask). */
const MATCHERS_WITH_EXTRA = 64;

export function createSkillRegistry(config: AppConfig, options: SkillRegistryOptions = {}): SkillRegistry {
  const cache = createScanCache();
  let result: DiscoveryResult | null = null;
  let byName = new Map<string, Skill>();
  let matcherState: { skills: readonly Skill[]; matcher: Matcher } | null = null;
  /** Matchers over the current skills and someone's own, for the current matcher (`base`) only. */
  let withExtra: { base: Matcher; kept: KeptMap<string, Matcher> } | null = null;
  const listeners = new Set<(result: DiscoveryResult) => void>();
  const sources: ExtraSkillSource[] = [];
  /** The last scan's own result, before the sources are added. */
  let lastScan: DiscoveryResult | null = null;

  // Scans never overlap (they share the cache). A full scan in flight is shared by every rescan() caller.
  let inFlight: { kind: 'full' | 'changes'; promise: Promise<DiscoveryResult> } | null = null;
  let watcher: SkillWatcher | null = null;
  let watchError: string | null = null;
  const pendingChanges = new Set<string>();
  let draining: Promise<void> | null = null;
  let followUp: NodeJS.Timeout | null = null;
  let debounceMs = 200;

  function apply(next: DiscoveryResult): DiscoveryResult {
    lastScan = next;
    const own = watchError ? { ...next, diagnostics: [...next.diagnostics, watchDiagnostic(watchError)] } : next;
    const shown = withSources(own, sources);
    result = shown;
    byName = new Map(shown.skills.map((s) => [s.name, s]));
    // Built here, with the scan, rather than by the first turn after it, which would wait for it. Only names and
    // descriptions feed the index, so a rescan that changed nothing else keeps the matcher.
    const kept = matcherState && sameMatcherInput(matcherState.skills, shown.skills) ? matcherState.matcher : null;
    matcherState = { skills: shown.skills, matcher: kept ?? createMatcher(shown.skills) };
    if (watcher) {
      const added = watcher.update(watchTargets(next));
      // A folder created just before its watch was set up may have gained a SKILL.md in between: look once more.
      if (added.length > 0 && added.length < 10_000) {
        if (followUp) clearTimeout(followUp);
        followUp = setTimeout(() => {
          followUp = null;
          queueChanges(added);
        }, debounceMs);
      }
    }
    for (const listener of listeners) {
      try {
        listener(shown);
      } catch {
        // A listener's failure is its own; the scan stands.
      }
    }
    return shown;
  }

  function run(kind: 'full' | 'changes', changed?: string[]): Promise<DiscoveryResult> {
    const promise = discoverSkills(config.roots, {
      limits: config.limits,
      cache,
      load: options.load,
      changed,
      ownFolders: ownFolders(config),
    })
      .then(apply)
      .finally(() => {
        // A failed scan keeps the previous result and lets the next call try again.
        if (inFlight?.promise === promise) inFlight = null;
      });
    inFlight = { kind, promise };
    return promise;
  }

  function rescan(): Promise<DiscoveryResult> {
    if (inFlight?.kind === 'full') return inFlight.promise;
    if (inFlight) {
      const after = inFlight.promise.catch(() => null);
      return after.then(() => (inFlight?.kind === 'full' ? inFlight.promise : run('full')));
    }
    return run('full');
  }

  function queueChanges(paths: readonly string[]): void {
    for (const p of paths) pendingChanges.add(p);
    if (draining) return;
    draining = (async () => {
      try {
        while (pendingChanges.size > 0 && watcher) {
          if (inFlight) await inFlight.promise.catch(() => null);
          if (inFlight) continue;
          const changed = [...pendingChanges];
          pendingChanges.clear();
          await run('changes', changed).catch(() => null);
        }
      } finally {
        draining = null;
      }
    })();
  }

  async function current(): Promise<DiscoveryResult> {
    return result ?? rescan();
  }

  function watchTargets(scanned: DiscoveryResult) {
    const { folders, skillFolders } = scannedFolders(cache);
    const missingRoots = scanned.roots.filter((r) => r.kind !== 'mcp' && !isDirectory(r.path)).map((r) => r.path);
    return { folders, skillFolders, missingRoots };
  }

  async function matcher(): Promise<Matcher> {
    await current();
    return matcherState!.matcher;
  }

  async function matcherWith(extra: readonly Skill[]): Promise<Matcher> {
    const base = await matcher();
    if (extra.length === 0) return base;
    if (withExtra?.base !== base) withExtra = { base, kept: new KeptMap(MATCHERS_WITH_EXTRA) };
    const key = matcherInput(extra);
    let kept = withExtra.kept.get(key);
    if (!kept) {
      const skills = [...matcherState!.skills, ...extra].sort((a, b) => compareNames(a.name, b.name));
      kept = createMatcher(skills);
      withExtra.kept.set(key, kept);
    }
    return kept;
  }

  return {
    config,
    current,
    rescan,
    async get(name) {
      await current();
      return byName.get(name);
    },
    matcher,
    matcherWith,
    async startWatching(watchOptions = {}) {
      if (watcher) return;
      debounceMs = watchOptions.debounceMs ?? 200;
      const scanned = await current();
      if (watcher) return;
      watchError = null;
      watcher = watchSkillRoots(watchTargets(scanned), {
        debounceMs,
        exists: isDirectory,
        onChange: (paths) => queueChanges(paths),
        onError: (error) => {
          // Events may have been lost: say so, and read everything again.
          watchError = (error as NodeJS.ErrnoException).code ?? error.message;
          void rescan().catch(() => null);
        },
      });
      await watcher.ready;
    },
    async stopWatching() {
      const w = watcher;
      watcher = null;
      if (followUp) clearTimeout(followUp);
      followUp = null;
      pendingChanges.clear();
      await w?.close();
      await draining;
    },
    isWatching: () => watcher !== null,
    watchStatus: () => ({ watching: watcher !== null, paths: watcher?.size() ?? 0, error: watchError }),
    addSource(source) {
      sources.push(source);
      // A source's change is applied to the last scan as it is: no rescan of the folders.
      source.subscribe(() => {
        if (lastScan) apply(lastScan);
      });
      if (lastScan) apply(lastScan);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * Whether two skill lists give the same matcher: the same names and descriptions in the same order. Unchanged skills
 * are the same objects across rescans (the scan cache), so this is mostly identity checks, where joining every
 * description into one signature string would keep a second copy of every description.
 */
export function sameMatcherInput(a: readonly Skill[], b: readonly Skill[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y && (x.name !== y.name || x.description !== y.description)) return false;
  }
  return true;
}

/** Whether to watch: config `watch` (default true), which SKILLCHAT_WATCH=0 turns off (config.ts). */
export function watchEnabled(config: AppConfig): boolean {
  return config.watch !== false;
}
