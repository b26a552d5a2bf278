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

/** The folder of the host's copies of served skills, under the data folder: `<data>/mcp-skills/<label>/...`. */
export const SERVED_SKILLS_DIR = 'mcp-skills';

/**
 * A root as shown to people: `.skills`, `../.agents/skills`, `~/.agents/skills`, or its last two segments; an MCP
 * server's served skills (their copies under `<data>/mcp-skills/<label>`) as `mcp:<label>`.
 */
/** A skills folder of the kind the default roots find in the app's ancestors. */
const ANCESTOR_ROOT = /^(\.\.\/)+\.(agents|claude)\/skills$/;

export function displayRoot(root: string, ctx: DisplayContext): string {
  if (path.basename(path.dirname(root)) === SERVED_SKILLS_DIR) return `mcp:${path.basename(root)}`;
  const fromApp = path.relative(ctx.appDir, root);
  const ups = fromApp.split(path.sep).filter((s) => s === '..').length;
  // Inside the app, or a folder above it that the walk to the repository's root reads (`../../.agents/skills`);
  // any other place out of the app (`../../tmp/x`) says more by its home-relative or last two names.
  if (!path.isAbsolute(fromApp) && (ups === 0 || (ups <= 3 && ANCESTOR_ROOT.test(toPosix(fromApp))))) {
    return toPosix(fromApp) || '.';
  }
  const fromHome = path.relative(ctx.home, root);
  if (!fromHome.startsWith('..') && !path.isAbsolute(fromHome)) return fromHome ? `~/${toPosix(fromHome)}` : '~';
  return `…/${toPosix(root.split(path.sep).filter(Boolean).slice(-2).join(path.sep))}`;
}

/** A skill folder as shown to people: its root's display form joined with its path inside the root. */
export function displaySkillLocation(
  skill: { root: string; relDir: string; origin?: { server: string; uri: string } },
  ctx: DisplayContext,
): string {
  if (skill.origin) return `mcp:${skill.origin.server}/${skill.origin.uri}`;
  const root = displayRoot(skill.root, ctx);
  return skill.relDir ? `${root}/${skill.relDir}` : root;
}
