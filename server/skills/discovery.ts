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
import { type Dirent, statSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Limits } from '../config';
import { compareNames } from './match';
import { loadSkill, SKILL_FILE_NAMES } from './skill-file';
import type { Collision, Diagnostic, DiscoveryResult, RootReport, Skill, SkillRoot } from './types';

export type SkillLoader = typeof loadSkill;

interface CacheEntry {
  file: string;
  size: number;
  mtimeMs: number;
  skill: Skill | null;
  diagnostics: Diagnostic[];
}

/**
 * What one folder looked like in the last scan. Kept so a watcher-driven rescan (`changed`) can reuse every
 * subtree no change touched without reading it again.
 */
interface WalkNode {
  /** The folder's real path ('' when it could not be resolved: a dangling link, a loop, a folder gone mid-scan). */
  real: string;
  /** Reached through a symlink below the root: events may name the link's target, so never reused. */
  linked: boolean;
  /** Some folder at or below this one is `linked`: re-walked (cheaply) so the links are. */
  hasLinked: boolean;
  /** A skill folder (its subfolders are resources, never walked). */
  skill: boolean;
  /** Subfolders walked, in order (null for a skill folder or a folder that was not listed). */
  children: Array<{ name: string; link: boolean }> | null;
  childNodes: ReadonlyMap<string, WalkNode>;
  /** The skill folder itself, or every skill folder below, in walk order. */
  candidates: Candidate[];
  diagnostics: Diagnostic[];
}

/** Parsed skills keyed by where they were found, valid while the skill file's size and mtime are unchanged. */
export interface ScanCache {
  /** The limits the entries were parsed with: different limits can change the outcome, so they reset the cache. */
  limits: string | null;
  entries: Map<string, CacheEntry>;
  /** The last walk of each root (for the same roots and limits), for incremental rescans. */
  walk?: { key: string; rootPaths: string[]; roots: Array<WalkNode | null> } | null;
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
}

interface Candidate {
  rootIndex: number;
  root: SkillRoot;
  /** The folder as reached from the root (through any symlinks), and its realpath. */
  dir: string;
  real: string;
  relDir: string;
  file: string;
  /** The skill file's size and mtime when the walk found it: with `key`, what the scan cache checks. */
  size: number;
  mtimeMs: number;
  /**
   * Everything the loader is told besides the file's content, so a skill reached under another root, scope or
   * relative path is parsed again rather than reported with stale locations.
   */
  key: string;
}

const SKIPPED_FOLDERS = new Set(['node_modules']);
const LOAD_CONCURRENCY = 8;
/** Siblings walked at once; between batches the scan may yield (see `breathe`). */
const WALK_BATCH = 256;
/**
 * Stats and reads are synchronous (much faster than the async API for many small files), so a long scan hands the
 * event loop back this often: a cold scan of 10,000 skills must not stall the requests the server is answering.
 */
const YIELD_EVERY_MS = 20;

let lastYield = 0;
async function breathe(): Promise<void> {
  const now = performance.now();
  if (now - lastYield < YIELD_EVERY_MS) return;
  await new Promise<void>((resolve) => setImmediate(resolve));
  lastYield = performance.now();
}

function skipped(name: string): boolean {
  return name.startsWith('.') || SKIPPED_FOLDERS.has(name);
}

/**
 * `compareNames` (code-point order) with a fast path: strings compare by UTF-16 unit up to the first difference,
 * which gives the same answer unless a surrogate is involved there. Sorting 10,000 names is otherwise a
 * noticeable share of a rescan.
 */
function compareNamesFast(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if ((x >= 0xd800 && x <= 0xdfff) || (y >= 0xd800 && y <= 0xdfff)) return compareNames(a, b);
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** `path.join` for a name without separators, minus the normalising (a measurable cost at 10,000 folders). */
function joinName(dir: string, name: string): string {
  return dir.endsWith(path.sep) ? dir + name : dir + path.sep + name;
}

/** Where a skill folder is, as people see it in their tree (the root as configured, not the realpath). */
function location(root: string, relDir: string): string {
  return relDir ? path.join(root, ...relDir.split('/')) : root;
}

/**
 * `findSkillFile` plus the stat the scan cache needs, in one synchronous call per name: the first name that exists
 * wins, as in `findSkillFile`. Synchronous on purpose: a stat of a cached inode takes microseconds, while an async
 * one costs a thread-pool round trip, which dominated rescans of 10,000 skills.
 */
function statSkillFile(dir: string): { file: string; size: number; mtimeMs: number } | null {
  for (const name of SKILL_FILE_NAMES) {
    const file = joinName(dir, name);
    try {
      const stat = statSync(file, { throwIfNoEntry: false });
      if (stat) return { file, size: stat.size, mtimeMs: stat.mtimeMs };
    } catch {
      return null; // EACCES, ENOTDIR, ELOOP: like findSkillFile, not a skill folder
    }
  }
  return null;
}

/** Which folders a set of changed paths touches: the paths and all their ancestors, and the folders listing them. */
interface ChangeSet {
  /** Reuse nothing at or above these. */
  dirty: Set<string>;
  /** List these folders again (an entry was added or removed). */
  listed: Set<string>;
}

function changeSet(changed: Iterable<string>): ChangeSet {
  const dirty = new Set<string>();
  const listed = new Set<string>();
  for (const raw of changed) {
    let p = path.resolve(raw);
    listed.add(p);
    listed.add(path.dirname(p));
    while (!dirty.has(p)) {
      dirty.add(p);
      const parent = path.dirname(p);
      if (parent === p) break;
      p = parent;
    }
  }
  return { dirty, listed };
}

interface WalkContext {
  limits: Limits;
  /** null: a full scan, nothing is reused. */
  changes: ChangeSet | null;
}

/** Leaves share one empty map (never written to): 10,000 skill folders need no 10,000 maps. */
const NO_CHILDREN: ReadonlyMap<string, WalkNode> = new Map();

function emptyNode(real = '', linked = false): WalkNode {
  return {
    real,
    linked,
    hasLinked: linked,
    skill: false,
    children: null,
    childNodes: NO_CHILDREN,
    candidates: [],
    diagnostics: [],
  };
}

/** An empty node (nothing found there), or the previous one when that was the same nothing. */
function nothing(previous: WalkNode | undefined, real: string, linked: boolean): WalkNode {
  const unchanged =
    previous &&
    !previous.skill &&
    previous.children === null &&
    previous.real === real &&
    previous.linked === linked &&
    previous.diagnostics.length === 0;
  return unchanged ? previous : emptyNode(real, linked);
}

/** The node of `dir` when it is a skill folder (its skill file stat'ed), else null. Synchronous. */
function skillNode(
  rootIndex: number,
  root: SkillRoot,
  dir: string,
  relDir: string,
  real: string,
  linked: boolean,
  previous: WalkNode | undefined,
): WalkNode | null {
  const skillFile = statSkillFile(dir);
  if (!skillFile) return null;
  // Unchanged since the last scan: the same node, so unchanged ancestors can be the same objects too (see walk),
  // and a rescan that finds nothing changed returns the last result without redoing collisions and sorting.
  const prior = previous?.skill ? previous.candidates[0] : undefined;
  if (
    prior &&
    previous!.real === real &&
    previous!.linked === linked &&
    prior.file === skillFile.file &&
    prior.size === skillFile.size &&
    prior.mtimeMs === skillFile.mtimeMs &&
    prior.relDir === relDir &&
    prior.rootIndex === rootIndex
  ) {
    return previous!;
  }
  const node = emptyNode(real, linked);
  node.skill = true;
  const key = `${dir}\0${root.path}\0${root.scope}\0${relDir}`;
  node.candidates.push({ rootIndex, root, dir, real, relDir, ...skillFile, key });
  return node;
}

async function walk(
  ctx: WalkContext,
  rootIndex: number,
  root: SkillRoot,
  dir: string,
  relDir: string,
  depth: number,
  ancestors: ReadonlySet<string>,
  known: { real: string | null; linked: boolean },
  previous: WalkNode | undefined,
): Promise<WalkNode> {
  const { changes, limits } = ctx;
  if (changes && previous && !previous.hasLinked && !known.linked && !changes.dirty.has(dir)) return previous;

  let real = known.real;
  if (real === null) {
    try {
      real = await fs.realpath(dir);
    } catch {
      return nothing(previous, '', known.linked); // A dangling link, a loop the OS refuses (ELOOP), or a folder removed mid-scan.
    }
  }
  if (ancestors.has(real)) return nothing(previous, '', known.linked);

  const skill = skillNode(rootIndex, root, dir, relDir, real, known.linked, previous);
  if (skill) return skill;
  if (depth >= limits.maxDepth) return nothing(previous, real, known.linked);

  let children: Array<{ name: string; link: boolean }>;
  if (changes && previous?.children && !changes.listed.has(dir)) {
    children = previous.children;
  } else {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (error) {
      const atRoot = depth === 0;
      const node = emptyNode(real, known.linked);
      node.diagnostics.push({
        severity: 'warning',
        code: atRoot ? 'root-unreadable' : 'folder-unreadable',
        message: `${atRoot ? 'Skill root' : 'Folder'} could not be read: ${dir} (${errorCode(error) ?? String(error)})`,
        hint: 'Check the folder permissions; skills inside it are not loaded.',
        root: root.path,
      });
      return node;
    }
    children = entries
      .filter((e) => !skipped(e.name) && (e.isDirectory() || e.isSymbolicLink()))
      .sort((a, b) => compareNamesFast(a.name, b.name))
      .map((e) => ({ name: e.name, link: e.isSymbolicLink() }));
  }

  const inner = new Set(ancestors).add(real);
  // Siblings are walked concurrently (I/O bound) in batches; results are concatenated in sorted order, so the
  // outcome (and "first found" in collisions) does not depend on which finishes first.
  const walkChild = async ({ name, link }: { name: string; link: boolean }): Promise<WalkNode> => {
    const child = joinName(dir, name);
    if (link) {
      const target = await fs.stat(child).catch(() => null);
      if (!target?.isDirectory()) return nothing(previous?.childNodes.get(name), '', true);
    }
    return walk(
      ctx,
      rootIndex,
      root,
      child,
      relDir ? `${relDir}/${name}` : name,
      depth + 1,
      inner,
      // A real folder's realpath is its parent's realpath plus its name: no realpath call per folder.
      { real: link || known.linked ? null : joinName(real, name), linked: link || known.linked },
      previous?.childNodes.get(name),
    );
  };
  // Untouched children are taken as they are, synchronously: a change in one of 10,000 skill folders must not
  // cost 10,000 promises.
  const results = new Array<WalkNode>(children.length);
  const toWalk: number[] = [];
  children.forEach((entry, i) => {
    const prior = entry.link || known.linked ? undefined : previous?.childNodes.get(entry.name);
    const child = joinName(dir, entry.name);
    if (changes && prior && !prior.hasLinked && !changes.dirty.has(child)) {
      results[i] = prior;
      return;
    }
    // Most children of a collection are skill folders: settle those without an async call each.
    const skill =
      entry.link || known.linked
        ? null
        : skillNode(
            rootIndex,
            root,
            child,
            relDir ? `${relDir}/${entry.name}` : entry.name,
            joinName(real, entry.name),
            false,
            prior,
          );
    if (skill) results[i] = skill;
    else toWalk.push(i);
  });
  for (let start = 0; start < toWalk.length; start += WALK_BATCH) {
    const batch = toWalk.slice(start, start + WALK_BATCH);
    const walked = await Promise.all(batch.map((i) => walkChild(children[i]!)));
    batch.forEach((i, k) => {
      results[i] = walked[k]!;
    });
    await breathe();
  }
  const same =
    previous?.children &&
    previous.real === real &&
    previous.linked === known.linked &&
    previous.diagnostics.length === 0 &&
    previous.children.length === children.length &&
    children.every(
      ({ name, link }, i) =>
        previous.children![i]!.name === name &&
        previous.children![i]!.link === link &&
        previous.childNodes.get(name) === results[i],
    );
  if (same) return previous;
  const node = emptyNode(real, known.linked);
  const childNodes = new Map<string, WalkNode>();
  node.children = children;
  node.childNodes = childNodes;
  children.forEach(({ name }, i) => {
    const result = results[i]!;
    childNodes.set(name, result);
    node.hasLinked ||= result.hasLinked;
    for (const c of result.candidates) node.candidates.push(c);
    for (const d of result.diagnostics) node.diagnostics.push(d);
  });
  return node;
}

/** Folders the last scan with this cache read, for a watcher: roots and the folders between them and the skills. */
export function scannedFolders(cache: ScanCache): { folders: string[]; skillFolders: string[] } {
  const folders: string[] = [];
  const skillFolders: string[] = [];
  const visit = (dir: string, node: WalkNode) => {
    if (node.skill) skillFolders.push(dir);
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
  next: Map<string, CacheEntry>,
): Promise<{ skill: Skill | null; diagnostics: Diagnostic[] }> {
  const loaded = await load(c.dir, {
    root: c.root.path,
    scope: c.root.scope,
    relDir: c.relDir,
    limits,
    resolved: { realDir: c.real, file: path.join(c.real, path.basename(c.file)) },
  });
  // Cached under the stat the walk took before reading: if the file changed in between, the next scan sees a
  // mismatch and parses again instead of keeping a stale parse.
  next.set(c.key, { file: c.file, size: c.size, mtimeMs: c.mtimeMs, ...loaded });
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
  // Walks are reused only for the same roots and limits; `changed` without a previous walk is a full scan.
  const walkKey = JSON.stringify({ roots, limits: limitsKey });
  const reusable = cache.walk?.key === walkKey ? cache.walk.roots : null;
  const ctx: WalkContext = { limits, changes: options.changed && reusable ? changeSet(options.changed) : null };
  const walked = await Promise.all(
    roots.map((root, i) =>
      inspected[i]!.isDir
        ? walk(ctx, i, root, root.path, '', 0, new Set(), { real: null, linked: false }, reusable?.[i] ?? undefined)
        : Promise.resolve(null),
    ),
  );
  cache.walk = { key: walkKey, rootPaths: roots.map((r) => r.path), roots: walked };
  const inspectedKey = JSON.stringify(inspected);
  const last = cache.last;
  if (last && last.inspected === inspectedKey && walked.every((node, i) => node === last.roots[i])) {
    // Every folder and skill file is as it was: the same result (watcher: the event was on a resource, say).
    return { ...last.result, scannedAt: Date.now(), durationMs: performance.now() - started };
  }

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

  // Unchanged skill files (same size and mtime as when parsed) come from the cache without touching the disk.
  const nextEntries = new Map<string, CacheEntry>();
  const loaded = new Array<{ skill: Skill | null; diagnostics: Diagnostic[] }>(candidates.length);
  const misses: number[] = [];
  candidates.forEach((c, i) => {
    const hit = previous.get(c.key);
    if (hit && hit.file === c.file && hit.size === c.size && hit.mtimeMs === c.mtimeMs) {
      nextEntries.set(c.key, hit);
      loaded[i] = hit;
    } else {
      misses.push(i);
    }
  });
  await mapLimited(misses, LOAD_CONCURRENCY, async (i) => {
    loaded[i] = await loadCandidate(candidates[i]!, limits, load, nextEntries);
    await breathe();
  });
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
  collisions.sort((a, b) => compareNamesFast(a.name, b.name));

  const skills = [...winners.values()].map((w) => w.skill).sort((a, b) => compareNamesFast(a.name, b.name));
  const counts = new Map<number, number>();
  for (const { candidate } of winners.values())
    counts.set(candidate.rootIndex, (counts.get(candidate.rootIndex) ?? 0) + 1);
  const rootReports: RootReport[] = roots.map((root, i) => ({
    ...root,
    exists: inspected[i]!.exists,
    skillCount: counts.get(i) ?? 0,
  }));

  const result = {
    skills,
    diagnostics: [...rootDiagnostics, ...skillDiagnostics, ...collisionDiagnostics],
    collisions,
    roots: rootReports,
  };
  cache.last = { roots: walked, inspected: inspectedKey, result };
  return { ...result, scannedAt: Date.now(), durationMs: performance.now() - started };
}
