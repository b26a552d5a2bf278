/**
 * The app's own folders, which discovery never walks into: the chat workspaces (a script writes there: a SKILL.md
 * it writes must never become a skill), the skills runtime, the install staging area, the copies of skills served by
 * MCP servers, and the data folder (the database's). A red-team run linked a skill root to the data folder and discovery walked into the workspaces.
 *
 * Compared by real path, so no spelling of the path (a link, `..`, another mount point of the same folder) gets in:
 * a root that is, or is inside, one of them is not scanned; a root that contains one skips it; a link to one is
 * not followed.
 *
 * The data folder is the one exception: a root the operator configured inside it is scanned (tests and small
 * installs keep `skills/` beside `skillchat.db`), since what a script or an install writes there is in the
 * workspaces, runtime and staging folders, which stay closed even then. When the database sits directly in the
 * app folder or the home folder (or above them), that folder is not "the data folder": it holds the app's and the
 * person's own skill roots.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { AppConfig } from '../../config';
import { isInside } from '../../paths';
import { SERVED_SKILLS_DIR } from '../display';

/**
 * The staging folder inside the install root, where server/install/ unpacks a skill before moving it in (a dot
 * folder: discovery skips it, and never follows a link into it). Named here, below the installer that uses it.
 */
export const STAGING_DIR = '.skillchat-staging';

export interface OwnFolder {
  /** Absolute; its real path once `resolveOwnFolders` has run. */
  path: string;
  /** For messages: what the folder holds ("chat workspaces"), never its path. */
  what: string;
  /** Only the data folder: a root configured inside it is scanned. */
  rootsInside: boolean;
}

type OwnFoldersConfig = Pick<AppConfig, 'appDir' | 'home' | 'databasePath' | 'install'> & {
  execution: { workspace: { dir: string }; runtime: { dir: string } };
};

/** Where the host writes its copies of MCP servers' skills: `<data>/mcp-skills` (beside the database). */
export function servedSkillsDir(config: Pick<AppConfig, 'databasePath'>): string {
  return path.join(path.dirname(path.resolve(/*turbopackIgnore: true*/ config.databasePath)), SERVED_SKILLS_DIR);
}

/** The app's own folders for this configuration (not yet resolved to real paths). */
export function ownFolders(config: OwnFoldersConfig): OwnFolder[] {
  const folders: OwnFolder[] = [
    {
      path: path.resolve(/*turbopackIgnore: true*/ config.execution.workspace.dir),
      what: 'chat workspaces',
      rootsInside: false,
    },
    {
      path: path.resolve(/*turbopackIgnore: true*/ config.execution.runtime.dir),
      what: 'skills runtime',
      rootsInside: false,
    },
    {
      path: path.resolve(/*turbopackIgnore: true*/ config.install.root, STAGING_DIR),
      what: 'install staging area',
      rootsInside: false,
    },
  ];
  const dataDir = path.dirname(path.resolve(/*turbopackIgnore: true*/ config.databasePath));
  // The host's copies of MCP servers' skills: served, not found (server/mcp/skill-cache.ts); closed even to a root
  // configured inside the data folder.
  folders.push({ path: servedSkillsDir(config), what: 'copies of served skills', rootsInside: false });
  const shared = [config.appDir, config.home].some((dir) =>
    isInside(dataDir, path.resolve(/*turbopackIgnore: true*/ dir)),
  );
  if (!shared) folders.push({ path: dataDir, what: 'data folder', rootsInside: true });
  return folders;
}

/** The real path of `p`, or of its nearest existing ancestor joined with the rest (a folder not created yet). */
async function realPathOf(p: string): Promise<string> {
  const rest: string[] = [];
  let at = p;
  for (;;) {
    try {
      return path.join(/*turbopackIgnore: true*/ await fs.realpath(/*turbopackIgnore: true*/ at), ...rest.reverse());
    } catch {
      const parent = path.dirname(at);
      if (parent === at) return p;
      rest.push(path.basename(at));
      at = parent;
    }
  }
}

export async function resolveOwnFolders(folders: readonly OwnFolder[]): Promise<OwnFolder[]> {
  return Promise.all(folders.map(async (f) => ({ ...f, path: await realPathOf(f.path) })));
}

/** The folders closed to the walk of a root whose real path is `rootReal` (the data folder stays open to a root inside it). */
export function ownFoldersFor(rootReal: string | null, folders: readonly OwnFolder[]): OwnFolder[] {
  return folders.filter((f) => !(f.rootsInside && rootReal && rootReal !== f.path && isInside(f.path, rootReal)));
}

/** The own folder `real` is, or is inside; undefined when it is none. The string test only skips most `isInside` calls. */
export function ownFolderOf(real: string, folders: readonly OwnFolder[]): OwnFolder | undefined {
  return folders.find((f) => real.startsWith(f.path) && isInside(f.path, real));
}
