/**
 * A bubblewrap run's package installs (`SandboxRequest.installs`). Layout inside:
 *
 *   /opt/skillchat-layer (rw)            the chat's layer, from `installs.layer`
 *     python/                            `pip install` (PIP_TARGET; a read-only venv takes no --user), on
 *                                        PYTHONPATH; its bin/ on PATH
 *     node/                              `npm install -g` (npm_config_prefix); lib/node_modules on NODE_PATH, bin/
 *                                        on PATH. A plain `npm install` writes /workspace/node_modules, the chat's.
 *   <folder> (ro)                        each `file://` index and find-links folder, at its own path
 *
 * and pip's and npm's index variables in place of the offline ones (PIP_NO_INDEX, npm_config_offline). The shared
 * runtime stays read-only: nothing a run installs reaches another chat.
 *
 * npm takes as its project the first folder up from the working directory with a package.json or a node_modules.
 * From a bare /workspace that is `/`, for the runtime's /node_modules (bwrap.ts): npm would install into the
 * read-only runtime, after reading all of it into memory. So a run of a workspace with neither gets an empty
 * /workspace/node_modules, which is taken away again when the run leaves it empty (`npmProject`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { SANDBOX_PATHS, type SandboxInstalls } from './port';

const LAYER = SANDBOX_PATHS.layer;
const PYTHON = `${LAYER}/python`;
const NODE = `${LAYER}/node`;

export function installMounts(installs: SandboxInstalls): string[] {
  return ['--bind', installs.layer, LAYER, ...installs.folders.flatMap((folder) => ['--ro-bind-try', folder, folder])];
}

/** `env` with the installs' variables: the indexes, the layer on the search paths, the offline switches gone. */
export function withInstalls(env: Readonly<Record<string, string>>, installs: SandboxInstalls): Record<string, string> {
  const { PIP_NO_INDEX: _pip, npm_config_offline: _npm, ...rest } = env;
  const add = (list: string | undefined, entry: string, first: boolean) =>
    !list ? entry : first ? `${entry}:${list}` : `${list}:${entry}`;
  const vars: Record<string, string> = {
    ...rest,
    PATH: add(env.PATH, `${PYTHON}/bin:${NODE}/bin`, true),
    PYTHONPATH: add(env.PYTHONPATH, PYTHON, true),
    NODE_PATH: add(env.NODE_PATH, `${NODE}/lib/node_modules`, false),
    PIP_TARGET: PYTHON,
    PIP_INDEX_URL: installs.pip.index,
    npm_config_registry: installs.npm,
    npm_config_prefix: NODE,
    npm_config_cache: '/tmp/.npm',
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
    // glibc gives each thread a malloc arena of 64 MB address space; npm's threads then pass the run's RLIMIT_AS
    // ("Zone Allocation failed - process out of memory") about one install in two.
    MALLOC_ARENA_MAX: '2',
    // No update checks or funding notices: they are requests too, and nobody reads them here.
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  if (installs.pip.extra.length > 0) vars.PIP_EXTRA_INDEX_URL = installs.pip.extra.join(' ');
  if (installs.pip.findLinks.length > 0) vars.PIP_FIND_LINKS = installs.pip.findLinks.join(' ');
  const plain = plainHttpHosts([installs.pip.index, ...installs.pip.extra, ...installs.pip.findLinks]);
  if (plain.length > 0) vars.PIP_TRUSTED_HOST = plain.join(' ');
  return vars;
}

/**
 * The `host:port` of each plain-http index: pip ignores one that is not a "trusted host". The operator configured
 * it, and over plain http the flag only lets pip use it (it loosens TLS checks, and these have none to loosen).
 */
function plainHttpHosts(urls: readonly string[]): string[] {
  return [...new Set(urls.filter((u) => u.startsWith('http://')).map((u) => new URL(u).host))];
}

/**
 * Makes the workspace npm's project for the run (see above); the returned function removes the folder again if the
 * run left it empty.
 */
export async function npmProject(workspace: string): Promise<() => Promise<void>> {
  const has = (name: string) =>
    fs.existsSync(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ workspace, name));
  if (has('package.json') || has('node_modules')) return async () => {};
  const folder = path.join(/*turbopackIgnore: true*/ workspace, 'node_modules');
  await fs.promises.mkdir(/*turbopackIgnore: true*/ folder, { mode: 0o775 });
  return () => fs.promises.rmdir(/*turbopackIgnore: true*/ folder).catch(() => {});
}
