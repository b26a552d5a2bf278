/**
 * Paths as people may see them in a browser: relative to the app folder or `~`, never absolute.
 */
import path from 'node:path';

export interface DisplayContext {
  appDir: string;
  home: string;
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

/** A root as shown to people: `.skills`, `../.agents/skills`, `~/.agents/skills`, or its last two segments. */
export function displayRoot(root: string, ctx: DisplayContext): string {
  const fromApp = path.relative(ctx.appDir, root);
  if (!path.isAbsolute(fromApp) && fromApp.split(path.sep).filter((s) => s === '..').length <= 3) {
    return toPosix(fromApp) || '.';
  }
  const fromHome = path.relative(ctx.home, root);
  if (!fromHome.startsWith('..') && !path.isAbsolute(fromHome)) return fromHome ? `~/${toPosix(fromHome)}` : '~';
  return `…/${toPosix(root.split(path.sep).filter(Boolean).slice(-2).join(path.sep))}`;
}

/** A skill folder as shown to people: its root's display form joined with its path inside the root. */
export function displaySkillLocation(skill: { root: string; relDir: string }, ctx: DisplayContext): string {
  const root = displayRoot(skill.root, ctx);
  return skill.relDir ? `${root}/${skill.relDir}` : root;
}
