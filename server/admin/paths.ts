import { relativeInside } from '../paths';
import { displayRoot } from '../skills/display';

export type PathMode = 'display' | 'absolute';

export interface PathDisplay {
  mode: PathMode;
  root(abs: string): string;
  /** A skill folder (or any path under a root): the root's display form plus the path inside it. */
  folder(abs: string): string;
  /** A message that may name absolute paths (diagnostics about roots do). */
  text(message: string): string;
}

const inside = relativeInside;

/**
 * Replaces absolute folders in a message in one pass. Sequential replacement (as `redactPaths` does) re-matches
 * inside text it already substituted: with roots `/app/.e2e/home/.agents/skills` and `/.agents/skills`, the first
 * becomes `.e2e/home/.agents/skills`, in which the second then matches again. One regular expression, longest
 * alternative first, anchored so a folder only matches where a path starts and ends, avoids both problems.
 */
export function replaceFolders(text: string, folders: ReadonlyArray<{ abs: string; display: string }>): string {
  const usable = folders.filter((f) => f.abs.length > 1).sort((a, b) => b.abs.length - a.abs.length);
  if (usable.length === 0) return text;
  const byAbs = new Map(usable.map((f) => [f.abs, f.display]));
  const alternatives = usable.map((f) => f.abs.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const pattern = new RegExp(`(?<![\\w.~/-])(?:${alternatives})(?=$|[/\\s'"\`),:;]|\\.(?:\\s|$))`, 'g');
  return text.replace(pattern, (match) => byAbs.get(match) ?? match);
}

export function createPathDisplay(
  ctx: { appDir: string; home: string; roots: ReadonlyArray<{ path: string }> },
  mode: PathMode = 'display',
): PathDisplay {
  if (mode === 'absolute') return { mode, root: (p) => p, folder: (p) => p, text: (m) => m };
  const root = (abs: string) => displayRoot(abs, ctx);
  // Longest root first, so a root nested in another labels its own skills.
  const roots = [...ctx.roots].map((r) => r.path).sort((a, b) => b.length - a.length);
  const folders = [
    ...roots.map((abs) => ({ abs, display: root(abs) })),
    { abs: ctx.appDir, display: '.' },
    { abs: ctx.home, display: '~' },
  ];
  return {
    mode,
    root,
    folder(abs) {
      for (const r of roots) {
        const rel = inside(r, abs);
        if (rel !== null) return rel ? `${root(r)}/${rel}` : root(r);
      }
      return replaceFolders(abs, folders);
    },
    text: (message) => replaceFolders(message, folders),
  };
}

/** A skill folder relative to its root (`pdf`, `team/pdf`), or its display form when it is the root itself. */
export function relativeToRoot(skillDir: string, rootDir: string): string | null {
  return inside(rootDir, skillDir);
}
