/**
 * Finds skill folders under the configured roots and loads them: roots in precedence order -> candidate folders ->
 * parsed skills (through the scan cache) -> collision resolution -> one DiscoveryResult.
 *
 * Walk rules:
 * - A folder with a skill file (SKILL.md, or skill.md) is a skill; its subfolders are its resources, never walked.
 *   This holds for the root itself: a root that is one skill folder (`SKILLCHAT_SKILL_ROOTS=~/work/my-skill`) is
 *   that skill, with relDir ''.
 * - Other folders are walked down to `limits.maxDepth` levels below the root, skipping `.git`, `node_modules` and
 *   dot-folders (`.venv`, `.cache` can be huge and never hold skills people meant to install).
 * - Symlinked folders are followed (people install skills by linking them). The same real folder reached twice
 *   counts once, first in precedence order; a link back to an ancestor is a loop and is not walked again.
 *
 * Missing roots: the default roots include `.agents/skills` in every folder up to `/`, so most are missing by
 * design and only the roots report shows them (`exists: false`). A missing root someone configured explicitly is
 * probably a typo and gets a warning.
 */
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Limits } from '../config';
import { compareNames } from './match';
import { findSkillFile, loadSkill } from './skill-file';
import type { Collision, Diagnostic, DiscoveryResult, RootReport, Skill, SkillRoot } from './types';

export type SkillLoader = typeof loadSkill;

interface CacheEntry {
  file: string;
  size: number;
  mtimeMs: number;
  skill: Skill | null;
  diagnostics: Diagnostic[];
}

/** Parsed skills keyed by where they were found, valid while the skill file's size and mtime are unchanged. */
export interface ScanCache {
  /** The limits the entries were parsed with: different limits can change the outcome, so they reset the cache. */
  limits: string | null;
  entries: Map<string, CacheEntry>;
}

export function createScanCache(): ScanCache {
  return { limits: null, entries: new Map() };
}

export interface DiscoverOptions {
  limits: Limits;
  cache?: ScanCache;
  /** The skill loader; tests inject a counting wrapper around `loadSkill`. */
  load?: SkillLoader;
}

interface Candidate {
  rootIndex: number;
  root: SkillRoot;
  /** The folder as reached from the root (through any symlinks), and its realpath. */
  dir: string;
  real: string;
  relDir: string;
  file: string;
}

interface WalkResult {
  candidates: Candidate[];
  diagnostics: Diagnostic[];
}

const SKIPPED_FOLDERS = new Set(['node_modules']);
const LOAD_CONCURRENCY = 8;

function skipped(name: string): boolean {
  return name.startsWith('.') || SKIPPED_FOLDERS.has(name);
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Where a skill folder is, as people see it in their tree (the root as configured, not the realpath). */
function location(root: string, relDir: string): string {
  return relDir ? path.join(root, ...relDir.split('/')) : root;
}

async function walk(
  rootIndex: number,
  root: SkillRoot,
  dir: string,
  relDir: string,
  depth: number,
  ancestors: ReadonlySet<string>,
  limits: Limits,
): Promise<WalkResult> {
  const none: WalkResult = { candidates: [], diagnostics: [] };
  let real: string;
  try {
    real = await fs.realpath(dir);
  } catch {
    return none; // A dangling link, a link loop the OS refuses (ELOOP), or a folder removed mid-scan.
  }
  if (ancestors.has(real)) return none;

  const file = findSkillFile(dir);
  if (file) return { candidates: [{ rootIndex, root, dir, real, relDir, file }], diagnostics: [] };
  if (depth >= limits.maxDepth) return none;

  let entries: Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (error) {
    const atRoot = depth === 0;
    return {
      candidates: [],
      diagnostics: [
        {
          severity: 'warning',
          code: atRoot ? 'root-unreadable' : 'folder-unreadable',
          message: `${atRoot ? 'Skill root' : 'Folder'} could not be read: ${dir} (${errorCode(error) ?? String(error)})`,
          hint: 'Check the folder permissions; skills inside it are not loaded.',
          root: root.path,
        },
      ],
    };
  }

  const inner = new Set(ancestors).add(real);
  const children = entries
    .filter((e) => !skipped(e.name) && (e.isDirectory() || e.isSymbolicLink()))
    .sort((a, b) => compareNames(a.name, b.name));
  // Siblings are walked concurrently (I/O bound); results are concatenated in sorted order, so the outcome
  // (and "first found" in collisions) does not depend on which finishes first.
  const results = await Promise.all(
    children.map(async (entry) => {
      const child = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        const target = await fs.stat(child).catch(() => null);
        if (!target?.isDirectory()) return none;
      }
      return walk(rootIndex, root, child, relDir ? `${relDir}/${entry.name}` : entry.name, depth + 1, inner, limits);
    }),
  );
  return {
    candidates: results.flatMap((r) => r.candidates),
    diagnostics: results.flatMap((r) => r.diagnostics),
  };
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

async function loadCandidate(
  c: Candidate,
  limits: Limits,
  load: SkillLoader,
  previous: Map<string, CacheEntry>,
  next: Map<string, CacheEntry>,
): Promise<{ skill: Skill | null; diagnostics: Diagnostic[] }> {
  // The key holds everything the loader is told besides the file's content, so a skill reached under another
  // root, scope or relative path is parsed again rather than reported with stale locations.
  const key = [c.dir, c.root.path, c.root.scope, c.relDir].join('\0');
  const stat = await fs.stat(c.file).catch(() => null);
  const hit = previous.get(key);
  if (stat && hit && hit.file === c.file && hit.size === stat.size && hit.mtimeMs === stat.mtimeMs) {
    next.set(key, hit);
    return hit;
  }
  const loaded = await load(c.dir, { root: c.root.path, scope: c.root.scope, relDir: c.relDir, limits });
  // Cache under the stat taken before reading: if the file changed in between, the next scan sees a mismatch
  // and parses again instead of keeping a stale parse.
  if (stat) next.set(key, { file: c.file, size: stat.size, mtimeMs: stat.mtimeMs, ...loaded });
  return loaded;
}

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let nextIndex = 0;
  const worker = async () => {
    while (nextIndex < items.length) {
      const i = nextIndex++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export async function discoverSkills(roots: readonly SkillRoot[], options: DiscoverOptions): Promise<DiscoveryResult> {
  const started = performance.now();
  const { limits } = options;
  const load = options.load ?? loadSkill;
  const cache = options.cache ?? createScanCache();
  const limitsKey = JSON.stringify(limits);
  const previous = cache.limits === limitsKey ? cache.entries : new Map<string, CacheEntry>();

  const inspected = await Promise.all(roots.map(inspectRoot));
  const walked = await Promise.all(
    roots.map((root, i) =>
      inspected[i]!.isDir ? walk(i, root, root.path, '', 0, new Set(), limits) : Promise.resolve(null),
    ),
  );

  const rootDiagnostics: Diagnostic[] = [];
  const candidates: Candidate[] = [];
  const seenReal = new Set<string>();
  roots.forEach((_, i) => {
    const { diagnostic } = inspected[i]!;
    if (diagnostic) rootDiagnostics.push(diagnostic);
    rootDiagnostics.push(...(walked[i]?.diagnostics ?? []));
    for (const c of walked[i]?.candidates ?? []) {
      if (seenReal.has(c.real)) continue;
      seenReal.add(c.real);
      candidates.push(c);
    }
  });

  const nextEntries = new Map<string, CacheEntry>();
  const loaded = await mapLimited(candidates, LOAD_CONCURRENCY, (c) =>
    loadCandidate(c, limits, load, previous, nextEntries),
  );
  // Only what this scan saw stays cached: removed skills do not accumulate.
  cache.limits = limitsKey;
  cache.entries = nextEntries;

  const skillDiagnostics: Diagnostic[] = [];
  const winners = new Map<string, { skill: Skill; candidate: Candidate }>();
  const losers = new Map<string, Array<{ skill: Skill; candidate: Candidate }>>();
  loaded.forEach(({ skill, diagnostics }, i) => {
    skillDiagnostics.push(...diagnostics);
    if (!skill) return;
    const candidate = candidates[i]!;
    const winner = winners.get(skill.name);
    if (!winner) winners.set(skill.name, { skill, candidate });
    else losers.set(skill.name, [...(losers.get(skill.name) ?? []), { skill, candidate }]);
  });

  const collisions: Collision[] = [];
  const collisionDiagnostics: Diagnostic[] = [];
  for (const [name, shadowed] of losers) {
    const winner = winners.get(name)!;
    const winnerAt = location(winner.candidate.root.path, winner.candidate.relDir);
    collisions.push({ name, winner: winner.skill.dir, losers: shadowed.map((l) => l.skill.dir) });
    for (const loser of shadowed) {
      collisionDiagnostics.push({
        severity: 'warning',
        code: 'name-collision',
        message:
          `Skill '${name}' at ${location(loser.candidate.root.path, loser.candidate.relDir)} is shadowed by ` +
          `${winnerAt}, which takes precedence; this copy is not loaded.`,
        hint: 'Rename one of them (folder and `name`), or remove the copy you do not want.',
        skillDir: loser.skill.dir,
        root: loser.candidate.root.path,
      });
    }
  }
  collisions.sort((a, b) => compareNames(a.name, b.name));

  const skills = [...winners.values()].map((w) => w.skill).sort((a, b) => compareNames(a.name, b.name));
  const counts = new Map<number, number>();
  for (const { candidate } of winners.values())
    counts.set(candidate.rootIndex, (counts.get(candidate.rootIndex) ?? 0) + 1);
  const rootReports: RootReport[] = roots.map((root, i) => ({
    ...root,
    exists: inspected[i]!.exists,
    skillCount: counts.get(i) ?? 0,
  }));

  return {
    skills,
    diagnostics: [...rootDiagnostics, ...skillDiagnostics, ...collisionDiagnostics],
    collisions,
    roots: rootReports,
    scannedAt: Date.now(),
    durationMs: performance.now() - started,
  };
}
