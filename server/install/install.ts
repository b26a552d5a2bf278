/**
 * Installing, updating and uninstalling skills in the install root. Every source goes the same way: entries are
 * checked (entries.ts) before anything is written, unpacked into a staging folder inside the install root (same
 * filesystem, so going live is one `rename`), validated with the loader discovery uses (stage.ts), then renamed
 * into place. The staging folder starts with a dot, which discovery skips.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Limits } from '../config';
import type { Resolver } from '../egress/address';
import { isInside } from '../paths';
import { STAGING_DIR } from '../skills/discovery/own-folders';
import type { Diagnostic } from '../skills/types';
import { diffSkillFolders, type SkillUpdateDiff } from './diff';
import { checkEntries } from './entries';
import { type ArchiveEntry, InstallError, type InstallLimits, problem } from './problems';
import {
  download,
  downloadIndexedFiles,
  gitClone,
  type NetworkOptions,
  parseSourceUrl,
  resolveIndexEntry,
  verifyDigest,
} from './sources';
import { stageSkill } from './stage';
import { copyTree, listTree } from './tree';
import { extractZip, listZip } from './zip';

// Every path below is a run-time one (install root, staging, sources): `turbopackIgnore` keeps `next build` from
// tracing them as the project's files. Traced, they took the build into data/, where the skills runtime's venv (which
// `npm start` installs while it builds) links python outside the project: the build failed on that link.

export type InstallSource =
  | { kind: 'archive'; file: string }
  | { kind: 'archive-bytes'; bytes: Buffer }
  | { kind: 'folder'; dir: string }
  /** A folder uploaded from a browser (`<input webkitdirectory>`): each file's relative path and bytes. */
  | { kind: 'files'; files: readonly UploadedFile[] }
  | { kind: 'url'; url: string; name?: string };

export interface UploadedFile {
  /** As the browser sent it (`webkitRelativePath`): checked like an archive's entry name before anything is written. */
  path: string;
  bytes: Buffer;
}

export interface InstallOptions {
  /** The writable root installs go to. */
  root: string;
  install: InstallLimits;
  limits: Limits;
  /**
   * `install` refuses a name that is taken; `preview` stages and diffs against the installed copy, changing nothing;
   * `update` replaces the installed copy.
   */
  mode?: 'install' | 'preview' | 'update';
  /**
   * A skill by this name is loaded from another root (installing would be shadowed, or shadow it): `true`, or the
   * sentence that says why the name is taken.
   */
  loadedElsewhere?: (name: string) => boolean | string;
  /** `file:` URLs read the server's own disk: the CLI allows them, the web admin does not. */
  allowFileUrls?: boolean;
  /** How host names are resolved for the network policy (tests); the system's resolver by default. */
  resolve?: Resolver;
}

export interface InstallResult {
  name: string;
  description: string;
  /** false for a preview. */
  applied: boolean;
  /** Whether a copy was already installed (then `diff` says what changes). */
  replaced: boolean;
  diff?: SkillUpdateDiff;
  diagnostics: Diagnostic[];
}

function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

async function makeStaging(root: string): Promise<string> {
  await fs.promises.mkdir(/*turbopackIgnore: true*/ root, { recursive: true });
  const base = path.join(/*turbopackIgnore: true*/ root, STAGING_DIR);
  const staging = path.join(/*turbopackIgnore: true*/ base, randomUUID());
  // Another install that just finished removes `base` when it is empty, possibly between our two mkdirs: try again.
  for (let attempt = 1; ; attempt++) {
    await fs.promises.mkdir(/*turbopackIgnore: true*/ base, { recursive: true, mode: 0o700 });
    try {
      await fs.promises.mkdir(/*turbopackIgnore: true*/ staging, { mode: 0o700 });
      return staging;
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT' || attempt >= 5) throw error;
    }
  }
}

/** Removes one install's staging folder, and the staging area too once no other install is using it. */
async function removeStaging(staging: string): Promise<void> {
  await fs.promises.rm(/*turbopackIgnore: true*/ staging, { recursive: true, force: true });
  await fs.promises.rmdir(/*turbopackIgnore: true*/ path.dirname(staging)).catch((error: unknown) => {
    // ENOTEMPTY/EEXIST: another install is under way; ENOENT: it already went.
    if (!['ENOTEMPTY', 'EEXIST', 'ENOENT'].includes(errnoCode(error) ?? '')) throw error;
  });
}

/**
 * How much of the source was listed: all of it, or the first entries of `total` (a zip's central directory says
 * how many it has) or of an unknown number (a folder is not walked past the cap).
 */
type Listed = { truncated: false } | { truncated: true; total?: number };

function refuseBadEntries(entries: ArchiveEntry[], limits: InstallLimits, listed: Listed): void {
  const problems = checkEntries(entries, limits, { partial: listed.truncated });
  if (listed.truncated) {
    // The listing stopped at the cap, so its own count of files is not the archive's: say what is known.
    const count =
      listed.total !== undefined
        ? `${listed.total} entries (files and folders)`
        : `At least ${entries.length} files and folders`;
    problems.push(problem('too-many-files', `${count}; the limit is ${limits.maxFiles} files (install.maxFiles)`));
  }
  if (problems.length > 0) throw new InstallError('invalid', problems);
}

/** Entries beyond this are not even listed: a refusal needs only to know there are too many. */
function listingCap(limits: InstallLimits): number {
  return limits.maxFiles * 2 + 100;
}

async function unpackArchive(file: string, unpacked: string, limits: InstallLimits): Promise<ArchiveEntry[]> {
  const listing = await listZip(file, listingCap(limits));
  try {
    refuseBadEntries(
      listing.entries,
      limits,
      listing.truncated ? { truncated: true, total: listing.total } : { truncated: false },
    );
  } catch (error) {
    listing.zipfile.close();
    throw error;
  }
  await fs.promises.mkdir(/*turbopackIgnore: true*/ unpacked, { mode: 0o755 });
  await extractZip(listing, unpacked, limits.maxBytes);
  return listing.entries.map(({ raw: _raw, ...entry }) => entry);
}

/** Parts of an uploaded folder that are not the skill's: a checkout's history, the desktop's own files. */
const UPLOAD_NOISE = new Set(['.git', '.DS_Store', 'Thumbs.db']);

/**
 * An uploaded folder's files, checked as an archive's entries are (paths, count, bytes, case clashes) before any is
 * written, then written with exclusive creates: what reaches `unpacked` is what an archive of the folder would give.
 */
async function unpackFiles(
  files: readonly UploadedFile[],
  unpacked: string,
  limits: InstallLimits,
): Promise<ArchiveEntry[]> {
  const kept = files.filter((f) => !f.path.split('/').some((part) => UPLOAD_NOISE.has(part)));
  if (kept.length === 0) {
    throw new InstallError('invalid', [problem('empty-upload', 'The uploaded folder has no files')]);
  }
  const entries: ArchiveEntry[] = kept.map((f) => ({ path: f.path, kind: 'file', size: f.bytes.length }));
  refuseBadEntries(entries, limits, { truncated: false });
  await fs.promises.mkdir(/*turbopackIgnore: true*/ unpacked, { mode: 0o755 });
  for (const file of kept) {
    const target = path.join(/*turbopackIgnore: true*/ unpacked, file.path);
    // checkEntries refused absolute paths and `..`: still, nothing is written outside the folder.
    if (!isInside(unpacked, target) || target === unpacked) {
      throw new InstallError('invalid', [problem('invalid-path', 'The path leaves the folder', file.path)]);
    }
    try {
      await fs.promises.mkdir(/*turbopackIgnore: true*/ path.dirname(target), { recursive: true, mode: 0o755 });
      await fs.promises.writeFile(/*turbopackIgnore: true*/ target, file.bytes, { mode: 0o644, flag: 'wx' });
    } catch (error) {
      // A file and a folder of one name (`a` and `a/b`): the upload cannot be a folder.
      if (!['EEXIST', 'ENOTDIR', 'EISDIR'].includes(errnoCode(error) ?? '')) throw error;
      throw new InstallError('invalid', [problem('path-clash', 'A file and a folder share this name', file.path)]);
    }
  }
  return entries;
}

/** The source unpacked into `<staging>/.source`, checked; returns its entries. */
async function unpack(source: InstallSource, staging: string, options: InstallOptions): Promise<ArchiveEntry[]> {
  const unpacked = path.join(/*turbopackIgnore: true*/ staging, '.source');
  const limits = options.install;
  if (source.kind === 'archive') return unpackArchive(source.file, unpacked, limits);
  if (source.kind === 'archive-bytes') {
    if (source.bytes.length > limits.maxDownloadBytes) {
      throw new InstallError('invalid', [
        problem(
          'download-too-large',
          `The archive is over ${limits.maxDownloadBytes} bytes (install.maxDownloadBytes)`,
        ),
      ]);
    }
    const file = path.join(/*turbopackIgnore: true*/ staging, 'upload.zip');
    await fs.promises.writeFile(/*turbopackIgnore: true*/ file, source.bytes, { mode: 0o600 });
    return unpackArchive(file, unpacked, limits);
  }
  if (source.kind === 'folder') {
    const entries = await listTree(
      path.resolve(/*turbopackIgnore: true*/ source.dir),
      listingCap(limits),
      new Set(['.git']),
    );
    refuseBadEntries(entries, limits, { truncated: entries.length > listingCap(limits) });
    await fs.promises.mkdir(/*turbopackIgnore: true*/ unpacked, { mode: 0o755 });
    await copyTree(path.resolve(/*turbopackIgnore: true*/ source.dir), entries, unpacked);
    return entries;
  }
  if (source.kind === 'files') return unpackFiles(source.files, unpacked, limits);
  const { url, kind } = parseSourceUrl(source.url);
  if (url.protocol === 'file:' && !options.allowFileUrls) {
    throw new InstallError('invalid', [problem('invalid-url', 'file: URLs are only accepted by the command line')]);
  }
  const network: NetworkOptions = {
    allowance: { allowPrivateNetworks: limits.allowPrivateNetworks, allowHosts: limits.allowHosts },
    ...(options.resolve ? { resolve: options.resolve } : {}),
  };
  if (kind === 'git') {
    await gitClone(url, unpacked, network);
    await fs.promises.rm(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ unpacked, '.git'), {
      recursive: true,
      force: true,
    });
    const entries = await listTree(unpacked, listingCap(limits));
    refuseBadEntries(entries, limits, { truncated: entries.length > listingCap(limits) });
    return entries;
  }
  if (kind !== 'index') {
    return unpack(
      { kind: 'archive-bytes', bytes: await download(url, limits.maxDownloadBytes, network) },
      staging,
      options,
    );
  }
  const choice = await resolveIndexEntry(url, source.name, limits.maxDownloadBytes, network);
  if (choice.kind === 'files') {
    await fs.promises.mkdir(unpacked, { mode: 0o755 });
    return downloadIndexedFiles(choice, unpacked, limits, network);
  }
  if (choice.url.protocol === 'file:' && !options.allowFileUrls) {
    throw new InstallError('invalid', [problem('invalid-url', 'file: URLs are only accepted by the command line')]);
  }
  const bytes = await download(choice.url, limits.maxDownloadBytes, network);
  verifyDigest(bytes, choice.digest);
  if (choice.kind === 'skill-md') {
    await fs.promises.mkdir(unpacked, { mode: 0o755 });
    await fs.promises.writeFile(path.join(unpacked, 'SKILL.md'), bytes, { mode: 0o644 });
    return [{ path: 'SKILL.md', kind: 'file', size: bytes.length }];
  }
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    throw new InstallError('invalid', [
      problem('archive-format', 'The archive is a .tar.gz; skillchat installs .zip and .skill archives'),
    ]);
  }
  return unpack({ kind: 'archive-bytes', bytes }, staging, options);
}

async function exists(p: string): Promise<boolean> {
  return fs.promises.lstat(/*turbopackIgnore: true*/ p).then(
    () => true,
    () => false,
  );
}

/** Installs (or previews, or updates) a skill from `source` into `options.root`. Throws InstallError with every reason. */
export async function installSkill(source: InstallSource, options: InstallOptions): Promise<InstallResult> {
  const mode = options.mode ?? 'install';
  const root = path.resolve(/*turbopackIgnore: true*/ options.root);
  const staging = await makeStaging(root);
  try {
    const entries = await unpack(source, staging, options);
    const staged = await stageSkill(
      path.join(/*turbopackIgnore: true*/ staging, '.source'),
      staging,
      entries,
      options.limits,
    );
    const target = path.join(/*turbopackIgnore: true*/ root, staged.name);
    const installed = await exists(target);
    if (mode === 'install' && installed) {
      throw new InstallError('conflict', [
        problem('already-installed', `A skill named "${staged.name}" is already installed; update it instead`),
      ]);
    }
    const taken = mode === 'install' ? options.loadedElsewhere?.(staged.name) : false;
    if (taken) {
      throw new InstallError('conflict', [
        problem(
          'name-taken',
          typeof taken === 'string' ? taken : `A skill named "${staged.name}" is already loaded from another root`,
        ),
      ]);
    }
    if (mode === 'update' && !installed) {
      throw new InstallError('not-found', [
        problem('not-installed', `No skill "${staged.name}" is installed to update`),
      ]);
    }
    const diff = installed ? await diffSkillFolders(target, staged.dir) : undefined;
    const result = {
      name: staged.name,
      description: staged.description,
      replaced: installed,
      diagnostics: staged.diagnostics,
      ...(diff ? { diff } : {}),
    };
    if (mode === 'preview') return { ...result, applied: false };
    if (installed) {
      // The old copy is moved aside first (a rename cannot replace a non-empty folder), and back if the swap fails.
      const aside = path.join(/*turbopackIgnore: true*/ staging, '.previous');
      await fs.promises.rename(/*turbopackIgnore: true*/ target, aside);
      try {
        await fs.promises.rename(/*turbopackIgnore: true*/ staged.dir, target);
      } catch (error) {
        await fs.promises.rename(/*turbopackIgnore: true*/ aside, target);
        throw error;
      }
    } else {
      try {
        await fs.promises.rename(/*turbopackIgnore: true*/ staged.dir, target);
      } catch (error) {
        const code = errnoCode(error);
        if (code === 'ENOTEMPTY' || code === 'EEXIST') {
          throw new InstallError('conflict', [
            problem('already-installed', `"${staged.name}" was installed meanwhile`),
          ]);
        }
        throw error;
      }
    }
    return { ...result, applied: true };
  } finally {
    await removeStaging(staging);
  }
}

/** A folder name that is a plain skill name (no separators, no dots first): anything else is not ours to remove. */
function checkName(name: string): void {
  if (!/^[^/\\.\0][^/\\\0]*$/.test(name) || name.length > 255) {
    throw new InstallError('invalid', [problem('invalid-name', `"${name.slice(0, 80)}" is not a skill name`)]);
  }
}

/** Removes `<root>/<name>`: moved into staging first (one rename, so the skill disappears at once), then deleted. */
export async function uninstallSkill(root: string, name: string): Promise<void> {
  checkName(name);
  const target = path.join(/*turbopackIgnore: true*/ path.resolve(/*turbopackIgnore: true*/ root), name);
  const stat = await fs.promises.lstat(/*turbopackIgnore: true*/ target).catch(() => null);
  if (!stat?.isDirectory()) {
    throw new InstallError('not-found', [
      problem('not-installed', `No skill "${name}" is installed in the install root`),
    ]);
  }
  const staging = await makeStaging(root);
  try {
    await fs.promises.rename(/*turbopackIgnore: true*/ target, path.join(/*turbopackIgnore: true*/ staging, name));
  } finally {
    await removeStaging(staging);
  }
}

/** Names of the skill folders in the install root (for the admin page and the CLI). */
export async function listInstalled(root: string): Promise<string[]> {
  const entries = await fs.promises.readdir(/*turbopackIgnore: true*/ root, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
}
