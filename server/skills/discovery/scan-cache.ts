/**
 * The scan cache: parsed skills kept between scans (valid while the skill file's size and mtime are unchanged), the
 * last walk of each root for incremental rescans, and the last result; plus the loading of the candidates the cache
 * cannot answer.
 */
import path from 'node:path';
import type { Limits } from '../../config';
import type { loadSkill } from '../load/skill-file';
import type { Diagnostic, DiscoveryResult, Skill } from '../types';
import { breathe, type Candidate, type WalkNode } from './walk';

export type SkillLoader = typeof loadSkill;

export interface CacheEntry {
  file: string;
  size: number;
  mtimeMs: number;
  ino: number;
  skill: Skill | null;
  diagnostics: Diagnostic[];
}

/** Parsed skills keyed by where they were found, valid while the skill file's size and mtime are unchanged. */
export interface ScanCache {
  /** The limits the entries were parsed with: different limits can change the outcome, so they reset the cache. */
  limits: string | null;
  entries: Map<string, CacheEntry>;
  /** The last walk of each root (for the same roots and limits), for incremental rescans. */
  walk?: { key: string; rootPaths: string[]; roots: Array<WalkNode | null>; capped?: boolean[] } | null;
  /** The last result and what it was computed from: an incremental scan that reused every root returns it again. */
  last?: {
    roots: Array<WalkNode | null>;
    inspected: string;
    result: Omit<DiscoveryResult, 'scannedAt' | 'durationMs'>;
  };
}

export function createScanCache(): ScanCache {
  return { limits: null, entries: new Map(), walk: null };
}

/** Folders the last scan with this cache read, for a watcher: roots and the folders between them and the skills. */
export function scannedFolders(cache: ScanCache): { folders: string[]; skillFolders: string[] } {
  const folders: string[] = [];
  const skillFolders: string[] = [];
  const visit = (dir: string, node: WalkNode) => {
    if (node.skill) {
      // The watcher keeps these paths: the candidate's own string when it is the same path, not a copy per folder.
      const found = node.candidates[0]?.dir;
      skillFolders.push(found === dir ? found : dir);
    }
    if (node.children === null) return;
    folders.push(dir);
    for (const { name } of node.children) {
      const child = node.childNodes.get(name);
      if (child) visit(path.join(dir, name), child);
    }
  };
  cache.walk?.roots.forEach((node, i) => {
    if (node) visit(cache.walk!.rootPaths[i]!, node);
  });
  return { folders, skillFolders };
}

/**
 * Loads every candidate, in order: unchanged skill files come from `previous`; the others are parsed, one after the
 * other (the loader reads synchronously: loading several at once would only interleave them). Returns the entries
 * this scan saw, which become the cache's.
 */
export async function loadCandidates(
  candidates: readonly Candidate[],
  previous: ReadonlyMap<string, CacheEntry>,
  limits: Limits,
  load: SkillLoader,
): Promise<{ loaded: Array<{ skill: Skill | null; diagnostics: Diagnostic[] }>; entries: Map<string, CacheEntry> }> {
  // Unchanged skill files (same size and mtime as when parsed) come from the cache without touching the disk.
  const nextEntries = new Map<string, CacheEntry>();
  const loaded = new Array<{ skill: Skill | null; diagnostics: Diagnostic[] }>(candidates.length);
  const misses: number[] = [];
  candidates.forEach((c, i) => {
    const hit = previous.get(c.key);
    if (hit && hit.file === c.file && hit.size === c.size && hit.mtimeMs === c.mtimeMs && hit.ino === c.ino) {
      nextEntries.set(c.key, hit);
      loaded[i] = hit;
    } else {
      misses.push(i);
    }
  });
  for (const i of misses) {
    const c = candidates[i]!;
    const result = await load(c.dir, {
      root: c.root.path,
      scope: c.root.scope,
      relDir: c.relDir,
      limits,
      // A folder reached by its real path has its skill file's path already: the Skill shares that string.
      resolved: {
        realDir: c.real,
        file: c.real === c.dir ? c.file : path.join(c.real, path.basename(c.file)),
        stat: { size: c.size, mtimeMs: c.mtimeMs, isFile: c.isFile },
      },
    });
    // Cached under the stat the walk took before reading: if the file changed in between, the next scan sees a
    // mismatch and parses again instead of keeping a stale parse.
    const { skill, diagnostics } = result;
    nextEntries.set(c.key, { file: c.file, size: c.size, mtimeMs: c.mtimeMs, ino: c.ino, skill, diagnostics });
    loaded[i] = result;
    const pause = breathe();
    if (pause) await pause;
  }
  return { loaded, entries: nextEntries };
}
