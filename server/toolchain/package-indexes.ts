/**
 * The package indexes a run's `pip install` and `npm install` reach when `runtime.installs` is `allow`: given in
 * `runtime.indexes`, or read once per process from pip's and npm's own configuration on this machine
 * (`<runtime python> -m pip config list`: index-url, extra-index-url, find-links, and PIP_INDEX_URL and the like as
 * `:env:` keys; `npm config get registry`). Only URLs are copied, never a config file (an npmrc holds tokens), and a
 * URL's user and password are dropped.
 *
 * What a run gets of them (`indexAccess`): an http(s) index is a `host:port` its proxy lets it GET from (the
 * pseudo-skill `(installs)`, egress/grants.ts); the default PyPI also brings files.pythonhosted.org, where its
 * files are. A `file://` index or a find-links folder is bound read-only at the same path (a `simple/` index with
 * its parent folder, where PEP 503 indexes keep the files its pages link to as `../../files/...`).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { oncePerKey } from '../once-per-key';

const exec = promisify(execFile);

export const DEFAULT_PIP_INDEX = 'https://pypi.org/simple';
export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org/';
/** Where PyPI's pages send pip for the files themselves. */
const PYPI_FILES = 'files.pythonhosted.org:443';

export interface PackageIndexes {
  /** `config`: `runtime.indexes`; `discovered`: pip's and npm's configuration on this machine. */
  source: 'config' | 'discovered';
  pip: {
    /** The index (`PIP_INDEX_URL`). */
    index: string;
    /** Extra indexes (`PIP_EXTRA_INDEX_URL`). */
    extra: string[];
    /** Folders or pages of wheels (`PIP_FIND_LINKS`). */
    findLinks: string[];
  };
  /** npm's registry (`npm_config_registry`). */
  npm: string;
  /** What could not be read or is not used, in words (for /admin). */
  problems: string[];
}

export interface IndexAccess {
  /** `host:port` patterns runs may GET from, through their proxy. */
  hosts: string[];
  /** Host folders bound read-only at the same path in the sandbox. */
  folders: string[];
}

export interface IndexSettings {
  /** The runtime folder (its venv's python reads the venv's pip.conf too) and the interpreter it was made from. */
  dir: string;
  python: string;
  indexes?: { pip: string[]; findLinks: string[]; npm?: string | undefined } | undefined;
}

/** `pip config list` output (`global.index-url='https://...'`, one a line) as key -> value. */
export function parsePipConfigList(output: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const line of output.split('\n')) {
    const match = /^([^=\s]+)=(.*)$/.exec(line.trim());
    if (!match) continue;
    let value = match[2]!.trim();
    // Python's repr of the value: quoted, with ' or ".
    if (value.length >= 2 && (value[0] === "'" || value[0] === '"') && value.at(-1) === value[0]) {
      value = value.slice(1, -1);
    }
    entries.set(match[1]!, value);
  }
  return entries;
}

/** A pip setting as pip itself ranks them: a PIP_ variable, then the `[install]` section, then `[global]`. */
function pipSetting(config: ReadonlyMap<string, string>, key: string): string[] {
  const value = config.get(`:env:.${key}`) ?? config.get(`install.${key}`) ?? config.get(`global.${key}`);
  return value ? value.split(/\s+/).filter(Boolean) : [];
}

/**
 * An index or find-links entry as a run may be given it: an http(s) or file URL without user or password, or an
 * absolute folder. Null (with the problem) for anything else.
 */
export function cleanIndexUrl(text: string, problems: string[]): string | null {
  if (text.startsWith('/')) return path.posix.normalize(text);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    problems.push(`"${text.slice(0, 200)}" is not a URL or an absolute folder, so runs do not get it`);
    return null;
  }
  if (!['http:', 'https:', 'file:'].includes(url.protocol)) {
    problems.push(`${url.protocol} indexes are not supported (only http, https and file), so runs do not get one`);
    return null;
  }
  if (url.username || url.password) {
    url.username = '';
    url.password = '';
    problems.push(`${url.host}: the index URL's user and password are not given to runs`);
  }
  return url.href;
}

function cleanAll(texts: readonly string[], problems: string[]): string[] {
  return [...new Set(texts.flatMap((t) => cleanIndexUrl(t, problems) ?? []))];
}

/** Indexes are URLs to pip: a folder becomes its file:// URL. */
function indexUrls(texts: readonly string[], problems: string[]): string[] {
  return cleanAll(texts, problems).map((u) => (u.startsWith('/') ? pathToFileURL(u).href : u));
}

/** The indexes from `runtime.indexes`, or from what pip's and npm's configuration say. Pure. */
export function readIndexes(
  given: IndexSettings['indexes'],
  discovered: { pipConfig: ReadonlyMap<string, string> | null; npmRegistry: string | null; problems: string[] },
): PackageIndexes {
  const problems = [...discovered.problems];
  if (given) {
    const [index, ...extra] = indexUrls(given.pip, problems);
    const npm = given.npm ? cleanIndexUrl(given.npm, problems) : null;
    return {
      source: 'config',
      pip: { index: index ?? DEFAULT_PIP_INDEX, extra, findLinks: cleanAll(given.findLinks, problems) },
      npm: npm ?? DEFAULT_NPM_REGISTRY,
      problems,
    };
  }
  const config = discovered.pipConfig ?? new Map<string, string>();
  const index = indexUrls(pipSetting(config, 'index-url'), problems)[0] ?? DEFAULT_PIP_INDEX;
  const npm = discovered.npmRegistry ? cleanIndexUrl(discovered.npmRegistry, problems) : null;
  return {
    source: 'discovered',
    pip: {
      index,
      extra: indexUrls(pipSetting(config, 'extra-index-url'), problems).filter((u) => u !== index),
      findLinks: cleanAll(pipSetting(config, 'find-links'), problems),
    },
    npm: npm ?? DEFAULT_NPM_REGISTRY,
    problems,
  };
}

/** Sandbox paths a bind of an index folder must not be, be inside of, or hold. */
const RESERVED = [
  '/proc',
  '/dev',
  '/workspace',
  '/skill',
  '/skills',
  '/node_modules',
  '/run/skillchat',
  '/etc/ssl',
  '/opt/skillchat-runtime',
  '/opt/skillchat-layer',
];

function reservedFolder(dir: string): boolean {
  return dir === '/' || RESERVED.some((r) => dir === r || dir.startsWith(`${r}/`) || r.startsWith(`${dir}/`));
}

/** The hosts and folders the indexes take. Pure. */
export function indexAccess(indexes: PackageIndexes): IndexAccess & { problems: string[] } {
  const hosts = new Set<string>();
  const folders = new Set<string>();
  const problems: string[] = [];
  const folder = (dir: string) => {
    if (reservedFolder(dir))
      problems.push(`${dir} cannot be bound into a run: it is, or holds, a folder the sandbox uses`);
    else folders.add(dir);
  };
  const urls = [indexes.pip.index, ...indexes.pip.extra, indexes.npm];
  for (const entry of [...urls, ...indexes.pip.findLinks]) {
    const isIndex = urls.includes(entry);
    if (entry.startsWith('/')) {
      folder(entry);
      continue;
    }
    const url = new URL(entry);
    if (url.protocol === 'file:') {
      const dir = path.posix.normalize(fileURLToPath(url)).replace(/\/$/, '') || '/';
      // A PEP 503 index links to `../../files/x.whl` from `simple/<name>/`: its parent holds what it serves.
      folder(isIndex && path.posix.basename(dir) === 'simple' ? path.posix.dirname(dir) : dir);
      continue;
    }
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    hosts.add(`${url.hostname}:${port}`);
    if (url.hostname === 'pypi.org') hosts.add(PYPI_FILES);
  }
  return { hosts: [...hosts], folders: [...folders], problems };
}

/** The venv's interpreter when the runtime is installed (it reads the venv's pip.conf), else the configured one. */
function pythonOf(settings: IndexSettings): string {
  const venv = path.join(/*turbopackIgnore: true*/ settings.dir, 'python', 'bin', 'python3');
  return fs.existsSync(/*turbopackIgnore: true*/ venv) ? venv : settings.python;
}

async function discover(settings: IndexSettings): Promise<PackageIndexes> {
  if (settings.indexes) return readIndexes(settings.indexes, { pipConfig: null, npmRegistry: null, problems: [] });
  const problems: string[] = [];
  // Not the server's folder: a project .npmrc there is not what runs should get.
  const cwd = fs.existsSync(/*turbopackIgnore: true*/ settings.dir) ? settings.dir : '/';
  const options = { timeout: 20_000, maxBuffer: 1024 * 1024, cwd };
  const [pip, npm] = await Promise.all([
    exec(pythonOf(settings), ['-m', 'pip', 'config', 'list'], options).then(
      (r) => parsePipConfigList(r.stdout),
      (error: Error) => {
        problems.push(`pip's configuration could not be read (${error.message.split('\n')[0]}); PyPI is used`);
        return null;
      },
    ),
    exec('npm', ['config', 'get', 'registry'], options).then(
      (r) => {
        const registry = r.stdout.trim();
        return registry && registry !== 'undefined' ? registry : null;
      },
      (error: Error) => {
        problems.push(`npm's registry could not be read (${error.message.split('\n')[0]}); npmjs.org is used`);
        return null;
      },
    ),
  ]);
  return readIndexes(undefined, { pipConfig: pip, npmRegistry: npm, problems });
}

const known = new Map<string, Promise<PackageIndexes>>();

/** The indexes for these settings, read once per process (and again when `runtime.indexes` changes). */
export function packageIndexes(settings: IndexSettings): Promise<PackageIndexes> {
  const key = JSON.stringify([settings.dir, settings.python, settings.indexes ?? null]);
  return oncePerKey(known, key, () => discover(settings));
}
