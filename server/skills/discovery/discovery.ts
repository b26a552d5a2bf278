/**
 * Finds skill folders under the configured roots and loads them: roots in precedence order -> candidate folders
 * (walk.ts) -> parsed skills (through the scan cache, scan-cache.ts) -> collision resolution (collisions.ts) -> one
 * DiscoveryResult. The walk rules (what counts as a skill folder, what is skipped, symlinks) are in walk.ts.
 *
 * Missing roots: the default roots include `.agents/skills` in every folder up to `/`, so most are missing by
 * design and only the roots report shows them (`exists: false`). A missing root someone configured explicitly is
 * probably a typo and gets a warning.
 */
import fs from 'node:fs/promises';
import type { Limits } from '../../config';
import { loadSkill } from '../load/skill-file';
import type { Diagnostic, DiscoveryResult, SkillRoot } from '../types';
import { resolveCollisions } from './collisions';
import { type OwnFolder, ownFoldersFor, resolveOwnFolders } from './own-folders';
import { type CacheEntry, createScanCache, loadCandidates, type ScanCache, type SkillLoader } from './scan-cache';
import { type Candidate, changeSet, errorCode, rootAncestors, walk } from './walk';

export { createScanCache, type ScanCache, type SkillLoader, scannedFolders } from './scan-cache';

export interface DiscoverOptions {
  limits: Limits;
  cache?: ScanCache;
  /** The skill loader; tests inject a counting wrapper around `loadSkill`. */
  load?: SkillLoader;
  /**
   * Paths that changed since the last scan with this cache (files or folders, absolute, as reached from the roots:
   * what a watcher reports). Folders no change is in or under are taken from the cache without a system call.
   * Without it every folder is listed and every skill file stat'ed again (a full rescan).
   */
  changed?: Iterable<string>;
  /**
   * The app's own folders (`ownFolders(config)`): never walked into. The registry and the CLI pass them; a bare
   * call (a test, the bench) scans the roots as given.
   */
  ownFolders?: readonly OwnFolder[];
}

/** Stats a root: missing roots are reported, not errors; a file where a folder should be is a warning. */
async function inspectRoot(root: SkillRoot): Promise<{ exists: boolean; isDir: boolean; diagnostic?: Diagnostic }> {
  try {
    const stat = await fs.stat(root.path);
    if (stat.isDirectory()) return { exists: true, isDir: true };
    return {
      exists: true,
      isDir: false,
      diagnostic: {
        severity: 'warning',
        code: 'root-not-directory',
        message: `Skill root is not a folder: ${root.path}`,
        hint: 'Point the root at the folder that contains your skill folders.',
        root: root.path,
      },
    };
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      if (root.kind !== 'configured') return { exists: false, isDir: false };
      return {
        exists: false,
        isDir: false,
        diagnostic: {
          severity: 'warning',
          code: 'root-missing',
          message: `Configured skill root does not exist: ${root.path}`,
          hint: 'Create the folder or fix the path in skillchat.config.json / SKILLCHAT_SKILL_ROOTS.',
          root: root.path,
        },
      };
    }
    return {
      exists: true,
      isDir: false,
      diagnostic: {
        severity: 'warning',
        code: 'root-unreadable',
        message: `Skill root could not be read: ${root.path} (${code ?? String(error)})`,
        hint: 'Check the folder permissions; skills inside it are not loaded.',
        root: root.path,
      },
    };
  }
}

function visitCapDiagnostic(root: SkillRoot, limits: Limits): Diagnostic {
  return {
    severity: 'warning',
    code: 'visit-cap',
    message: `Skill root ${root.path}: stopped after visiting ${limits.maxFoldersPerRoot} folders; skills further in are not loaded.`,
    hint: 'Point the root (or the links in it) at the folders holding skills, or raise limits.maxFoldersPerRoot.',
    root: root.path,
  };
}

export async function discoverSkills(roots: readonly SkillRoot[], options: DiscoverOptions): Promise<DiscoveryResult> {
  const walked = await walkRoots(roots, options);
  return walked.finish(options.cache);
}

/** The first half of a scan: the roots walked and every skill file stat'ed, nothing parsed yet. */
export interface WalkedRoots {
  /**
   * Everything the result is computed from besides the skill files' contents, which the stat of each file stands
   * for (path, size, mtime, inode): the roots and limits, what the walk found and said. Two walks with the same
   * fingerprint give the same result while the code is the same (the caller adds its version).
   */
  fingerprint(): string;
  /**
   * Parses what `cache` (the one given to walkRoots, or another whose entries to reuse) cannot answer and builds
   * the result. Call once.
   */
  finish(cache?: ScanCache): Promise<DiscoveryResult>;
}

export async function walkRoots(roots: readonly SkillRoot[], options: DiscoverOptions): Promise<WalkedRoots> {
  const started = performance.now();
  const { limits } = options;
  const load = options.load ?? loadSkill;
  const cache = options.cache ?? createScanCache();
  const limitsKey = JSON.stringify(limits);

  const inspected = await Promise.all(roots.map(inspectRoot));
  const own = await resolveOwnFolders(options.ownFolders ?? []);
  // Walks are reused only for the same roots, limits and own folders; `changed` without a previous walk is a full scan.
  const walkKey = JSON.stringify({ roots, limits: limitsKey, own });
  const reusable = cache.walk?.key === walkKey ? cache.walk.roots : null;
  const changes = options.changed && reusable ? changeSet(options.changed) : null;
  const budgets = roots.map(() => ({ visited: 0, capped: false }));
  const walked = await Promise.all(
    roots.map(async (root, i) => {
      if (!inspected[i]!.isDir) return null;
      const rootReal = await fs.realpath(root.path).catch(() => null);
      const ownFolders = ownFoldersFor(rootReal, own);
      const ctx = { limits, changes, rootAncestors: await rootAncestors(root.path), ownFolders, budget: budgets[i]! };
      // A walk the cap cut short is not a picture of the root: the next scan starts afresh.
      const previousRoot = cache.walk?.capped?.[i] ? undefined : (reusable?.[i] ?? undefined);
      return walk(ctx, i, root, root.path, '', 0, new Set(), { real: null, linked: false }, previousRoot);
    }),
  );
  const capped = budgets.map((b) => b.capped);
  cache.walk = { key: walkKey, rootPaths: roots.map((r) => r.path), roots: walked, capped };
  const inspectedKey = JSON.stringify(inspected);
  /** What the walk found, in precedence order: the same real folder counts once, first. */
  const collect = () => {
    const rootDiagnostics: Diagnostic[] = [];
    const candidates: Candidate[] = [];
    const seenReal = new Set<string>();
    roots.forEach((_, i) => {
      const { diagnostic } = inspected[i]!;
      if (diagnostic) rootDiagnostics.push(diagnostic);
      rootDiagnostics.push(...(walked[i]?.diagnostics ?? []));
      if (capped[i]) rootDiagnostics.push(visitCapDiagnostic(roots[i]!, limits));
      for (const c of walked[i]?.candidates ?? []) {
        if (seenReal.has(c.real)) continue;
        seenReal.add(c.real);
        candidates.push(c);
      }
    });
    return { rootDiagnostics, candidates };
  };
  const fingerprintOf = ({ rootDiagnostics, candidates }: ReturnType<typeof collect>) =>
    JSON.stringify([
      roots,
      limitsKey,
      inspected,
      rootDiagnostics,
      capped,
      candidates.map((c) => [c.key, c.file, c.real, c.size, c.mtimeMs, c.ino]),
    ]);

  const last = cache.last;
  if (last && last.inspected === inspectedKey && walked.every((node, i) => node === last.roots[i])) {
    // Every folder and skill file is as it was: the same result (watcher: the event was on a resource, say).
    return {
      fingerprint: () => fingerprintOf(collect()),
      finish: async () => ({ ...last.result, scannedAt: Date.now(), durationMs: performance.now() - started }),
    };
  }

  const found = collect();
  const { rootDiagnostics, candidates } = found;
  return {
    fingerprint: () => fingerprintOf(found),
    finish: async (finishCache = cache) => {
      const previous = finishCache.limits === limitsKey ? finishCache.entries : new Map<string, CacheEntry>();
      const { loaded, entries } = await loadCandidates(candidates, previous, limits, load);
      // Only what this scan saw stays cached: removed skills do not accumulate.
      finishCache.limits = limitsKey;
      finishCache.entries = entries;
      if (finishCache !== cache) finishCache.walk = cache.walk;

      const result = resolveCollisions(roots, inspected, rootDiagnostics, candidates, loaded);
      finishCache.last = { roots: walked, inspected: inspectedKey, result };
      return { ...result, scannedAt: Date.now(), durationMs: performance.now() - started };
    },
  };
}
