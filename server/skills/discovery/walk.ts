/**
 * The folder walk inside one root: a root -> a tree of WalkNodes whose `candidates` are the skill folders found, in
 * walk order. A rescan with a ChangeSet reuses every node no change touched.
 *
 * Walk rules:
 * - A folder with a skill file (SKILL.md, or skill.md) is a skill; its subfolders are its resources, never walked.
 *   This holds for the root itself: a root that is one skill folder (`SKILLCHAT_SKILL_ROOTS=~/work/my-skill`) is
 *   that skill, with relDir ''.
 * - Other folders are walked down to `limits.maxDepth` levels below the root, skipping `.git`, `node_modules` and
 *   dot-folders (`.venv`, `.cache` can be huge and never hold skills people meant to install).
 * - Symlinked folders are followed (people install skills by linking them). The same real folder reached twice
 *   counts once, first in precedence order; a link back to a folder of the walk is a loop and is not walked again.
 *   A link to a folder that contains the root (its parent, a home folder, `/`) is never followed and is reported
 *   (`link-to-ancestor`): following it would load every SKILL.md on the disk.
 * - At most `limits.maxFoldersPerRoot` folders are visited per root; past that the walk stops (discovery reports
 *   `visit-cap`), so a link to a large system folder costs a bounded scan.
 * - The app's own folders (chat workspaces, runtime, install staging, data folder: own-folders.ts) are never walked
 *   into, by link or otherwise (`own-folder`), so a SKILL.md a script writes into its workspace never becomes a skill.
 */
import { type Dirent, statSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Limits } from '../../config';
import { isAbsentCode, SKILL_FILE_NAMES } from '../load/skill-file';
import { compareNames } from '../name-order';
import type { Diagnostic, SkillRoot } from '../types';
import { type OwnFolder, ownFolderOf } from './own-folders';

/**
 * What one folder looked like in the last scan. Kept so a watcher-driven rescan (`changed`) can reuse every
 * subtree no change touched without reading it again.
 */
export interface WalkNode {
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
  /** Folders visited in this subtree (this one included): a reused subtree still counts towards the cap. */
  visited: number;
}

export interface Candidate {
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
  /** The skill file's inode: a file replaced by another of the same size and mtime (a restore, say) is parsed again. */
  ino: number;
  /** A regular file (or a link to one) when the walk stat'ed it: the loader reads it without a stat of its own. */
  isFile: boolean;
  /**
   * Everything the loader is told besides the file's content, so a skill reached under another root, scope or
   * relative path is parsed again rather than reported with stale locations.
   */
  key: string;
}

const SKIPPED_FOLDERS = new Set(['node_modules']);
/** Siblings walked at once; between batches the scan may yield (see `breathe`). */
const WALK_BATCH = 256;
/**
 * Stats and reads are synchronous (much faster than the async API for many small files), so a long scan hands the
 * event loop back this often: a cold scan of 10,000 skills must not stall the requests the server is answering.
 */
const YIELD_EVERY_MS = 20;

let lastYield = 0;
/**
 * A promise to await when it is time to yield, else undefined: no promise, no turn of the microtask queue (the
 * loader calls this for each of 10,000 skills).
 */
export function breathe(): Promise<void> | undefined {
  const now = performance.now();
  if (now - lastYield < YIELD_EVERY_MS) return undefined;
  return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
    lastYield = performance.now();
  });
}

function skipped(name: string): boolean {
  return name.startsWith('.') || SKIPPED_FOLDERS.has(name);
}

/**
 * `compareNames` (code-point order) with a fast path: strings compare by UTF-16 unit up to the first difference,
 * which gives the same answer unless a surrogate is involved there. Sorting 10,000 names is otherwise a
 * noticeable share of a rescan.
 */
export function compareNamesFast(a: string, b: string): number {
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

export function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** `path.join` for a name without separators, minus the normalising (a measurable cost at 10,000 folders). */
function joinName(dir: string, name: string): string {
  return dir.endsWith(path.sep) ? dir + name : dir + path.sep + name;
}

/**
 * `findSkillFile` plus the stat the scan cache needs, in one synchronous call per name: the first name that exists
 * wins, as in `findSkillFile`. Synchronous on purpose: a stat of a cached inode takes microseconds, while an async
 * one costs a thread-pool round trip, which dominated rescans of 10,000 skills.
 */
function statSkillFile(
  dir: string,
): { file: string; size: number; mtimeMs: number; ino: number; isFile: boolean } | null {
  for (const name of SKILL_FILE_NAMES) {
    const file = joinName(dir, name);
    try {
      const stat = statSync(file, { throwIfNoEntry: false });
      if (stat) return { file, size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, isFile: stat.isFile() };
    } catch (error) {
      // A symlink loop is absent, as in findSkillFile: try the next name. EACCES and the like: not a skill folder.
      if (isAbsentCode((error as NodeJS.ErrnoException).code)) continue;
      return null;
    }
  }
  return null;
}

/** Which folders a set of changed paths touches: the paths and all their ancestors, and the folders listing them. */
export interface ChangeSet {
  /** Reuse nothing at or above these. */
  dirty: Set<string>;
  /** List these folders again (an entry was added or removed). */
  listed: Set<string>;
}

export function changeSet(changed: Iterable<string>): ChangeSet {
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

export interface WalkContext {
  limits: Limits;
  /** null: a full scan, nothing is reused. */
  changes: ChangeSet | null;
  /** The root's realpath and every folder above it, up to `/`: links there are never followed. */
  rootAncestors: ReadonlySet<string>;
  /** The app's own folders closed to this root's walk, by real path (`ownFoldersFor`). */
  ownFolders: readonly OwnFolder[];
  /** Folders visited in this root so far; `capped` once `limits.maxFoldersPerRoot` stopped the walk. */
  budget: { visited: number; capped: boolean };
}

/** A root's realpath and all its ancestors (for `WalkContext.rootAncestors`); empty when it cannot be resolved. */
export async function rootAncestors(rootPath: string): Promise<Set<string>> {
  const out = new Set<string>();
  let p = await fs.realpath(rootPath).catch(() => null);
  while (p !== null) {
    out.add(p);
    const parent = path.dirname(p);
    p = parent === p ? null : parent;
  }
  return out;
}

/** Counts one folder visit; false (and the budget marked capped) when the root's cap is reached. */
function visit(ctx: WalkContext): boolean {
  if (ctx.budget.visited >= ctx.limits.maxFoldersPerRoot) {
    ctx.budget.capped = true;
    return false;
  }
  ctx.budget.visited++;
  return true;
}

/** Takes a subtree from the last scan as it is: its folders still count towards the cap. */
function reuse(ctx: WalkContext, node: WalkNode): WalkNode {
  ctx.budget.visited += node.visited;
  return node;
}

/** Leaves share one empty map and empty lists (never written to): 10,000 skill folders need no 10,000 of each. */
const NO_CHILDREN: ReadonlyMap<string, WalkNode> = new Map();
const NONE = Object.freeze([]) as never[];

function emptyNode(
  real = '',
  linked = false,
  candidates: Candidate[] = NONE,
  diagnostics: Diagnostic[] = NONE,
): WalkNode {
  return {
    real,
    linked,
    hasLinked: linked,
    skill: false,
    children: null,
    childNodes: NO_CHILDREN,
    candidates,
    diagnostics,
    visited: 1,
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

/**
 * An own folder reached by the walk: nothing in it is looked at. The root itself, or a link, is a warning (someone
 * pointed discovery there); a plain subfolder of a root that contains the data folder is only noted. The message
 * says what the folder holds and where it was reached from, never the folder's own path.
 */
function ownFolderNode(root: SkillRoot, relDir: string, own: OwnFolder, linked: boolean): WalkNode {
  const where = relDir === '' ? 'The skill root' : linked ? `The link ${relDir}` : `The folder ${relDir}`;
  const what = relDir === '' ? 'is (or is inside)' : linked ? 'leads into' : 'is';
  return emptyNode('', linked, NONE, [
    {
      severity: relDir === '' || linked ? 'warning' : 'info',
      code: 'own-folder',
      message: `${where} ${what} the app's ${own.what}; it is not scanned: files written there (by scripts, installs or the app) never become skills.`,
      hint: "Point skill roots and links at skill folders outside the app's data, workspaces, runtime and install staging folders.",
      root: root.path,
    },
  ]);
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
    prior.ino === skillFile.ino &&
    prior.relDir === relDir &&
    prior.rootIndex === rootIndex
  ) {
    return previous!;
  }
  // Every field written out (a spread puts them outside the object), and the key joined flat: one string, not a
  // chain of six pieces.
  const candidate: Candidate = {
    rootIndex,
    root,
    dir,
    real,
    relDir,
    file: skillFile.file,
    size: skillFile.size,
    mtimeMs: skillFile.mtimeMs,
    ino: skillFile.ino,
    isFile: skillFile.isFile,
    key: [dir, root.path, root.scope, relDir].join('\0'),
  };
  const node = emptyNode(real, linked, [candidate]);
  node.skill = true;
  return node;
}

export async function walk(
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
  if (changes && previous && !previous.hasLinked && !known.linked && !changes.dirty.has(dir)) {
    return reuse(ctx, previous);
  }
  if (!visit(ctx)) return emptyNode('', known.linked);

  let real = known.real;
  if (real === null) {
    try {
      real = await fs.realpath(dir);
    } catch {
      return nothing(previous, '', known.linked); // A dangling link, a loop the OS refuses (ELOOP), or a folder removed mid-scan.
    }
  }
  if (ancestors.has(real)) return nothing(previous, '', known.linked);
  if (known.linked && ctx.rootAncestors.has(real)) {
    return emptyNode('', true, NONE, [
      {
        severity: 'warning',
        code: 'link-to-ancestor',
        message: `Link ${dir} points to ${real}, a folder that contains the skill root; it is not followed.`,
        hint: 'Link the skill folders themselves, not a folder above the root (or /).',
        root: root.path,
      },
    ]);
  }

  const own = ownFolderOf(real, ctx.ownFolders);
  if (own) return ownFolderNode(root, relDir, own, known.linked);

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
      return emptyNode(real, known.linked, NONE, [
        {
          severity: 'warning',
          code: atRoot ? 'root-unreadable' : 'folder-unreadable',
          message: `${atRoot ? 'Skill root' : 'Folder'} could not be read: ${dir} (${errorCode(error) ?? String(error)})`,
          hint: 'Check the folder permissions; skills inside it are not loaded.',
          root: root.path,
        },
      ]);
    }
    children = entries
      .filter((e) => !skipped(e.name) && (e.isDirectory() || e.isSymbolicLink()))
      .sort((a, b) => compareNamesFast(a.name, b.name))
      .map((e) => ({ name: e.name, link: e.isSymbolicLink() }));
  }

  // Below a folder reached by its real path, a child's path is its real path too: one string for both.
  const realOf = (child: string, name: string) => (real === dir ? child : joinName(real!, name));
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
      { real: link || known.linked ? null : realOf(child, name), linked: link || known.linked },
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
      results[i] = reuse(ctx, prior);
      return;
    }
    // Most children of a collection are skill folders: settle those without an async call each. An own folder goes
    // the long way, where it is refused.
    const skill =
      entry.link ||
      known.linked ||
      ctx.budget.visited >= limits.maxFoldersPerRoot ||
      (ctx.ownFolders.length > 0 && ownFolderOf(realOf(child, entry.name), ctx.ownFolders))
        ? null
        : skillNode(
            rootIndex,
            root,
            child,
            relDir ? `${relDir}/${entry.name}` : entry.name,
            realOf(child, entry.name),
            false,
            prior,
          );
    if (skill) {
      ctx.budget.visited++;
      results[i] = skill;
    } else toWalk.push(i);
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
  const node = emptyNode(real, known.linked, [], []);
  const childNodes = new Map<string, WalkNode>();
  node.children = children;
  node.childNodes = childNodes;
  children.forEach(({ name }, i) => {
    const result = results[i]!;
    childNodes.set(name, result);
    node.hasLinked ||= result.hasLinked;
    node.visited += result.visited;
    for (const c of result.candidates) node.candidates.push(c);
    for (const d of result.diagnostics) node.diagnostics.push(d);
  });
  return node;
}
