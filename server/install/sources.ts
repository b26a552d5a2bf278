/**
 * Getting a source onto disk, only on an admin's explicit request: a git repository (the system `git`, shallow, no
 * submodules, no hooks), an archive URL, or an index (`index.json`) whose entry's files or archive must match their
 * sha256 digests. Downloads are capped at `install.maxDownloadBytes` and time out; nothing here runs at start-up. Every
 * host is checked against the network policy first (network.ts: public addresses only unless the operator allows
 * more), and downloads connect to the address that was checked. An index comes in three forms (see
 * `resolveIndexEntry`); every file it names is checked against its digest before it is used.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { bareHost, type NetworkAllowance, type Resolver } from '../egress/address';
import { sha256Hex, skillDigest } from '../skills/digests';
import { checkEntries } from './entries';
import { checkHost, fetchChecked } from './network';
import { type ArchiveEntry, InstallError, type InstallLimits, problem } from './problems';

/** What the network policy needs: the operator's allowance, and (tests) a resolver. */
export interface NetworkOptions {
  allowance: NetworkAllowance;
  resolve?: Resolver;
}

const GIT_TIMEOUT_MS = 120_000;
const FETCH_TIMEOUT_MS = 60_000;

export type UrlKind = 'index' | 'archive' | 'git';

/** `.json` is an index, `.zip`/`.skill` an archive, anything else a git repository. */
export function urlKind(url: URL): UrlKind {
  const pathname = url.pathname.toLowerCase();
  if (pathname.endsWith('.json')) return 'index';
  if (pathname.endsWith('.zip') || pathname.endsWith('.skill')) return 'archive';
  return 'git';
}

const ALLOWED_PROTOCOLS: Record<UrlKind, readonly string[]> = {
  index: ['https:', 'http:', 'file:'],
  archive: ['https:', 'http:', 'file:'],
  git: ['https:', 'http:', 'ssh:', 'file:'],
};

export function parseSourceUrl(raw: string): { url: URL; kind: UrlKind } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InstallError('invalid', [problem('invalid-url', `Not a URL: ${raw.slice(0, 200)}`)]);
  }
  const kind = urlKind(url);
  if (!ALLOWED_PROTOCOLS[kind].includes(url.protocol)) {
    throw new InstallError('invalid', [
      problem(
        'invalid-url',
        `${url.protocol} URLs are not supported for a ${kind}; use ${ALLOWED_PROTOCOLS[kind].join(' ')}`,
      ),
    ]);
  }
  return { url, kind };
}

/**
 * What git is told so it reaches only the checked address: only the URL's own transport (`protocol.allow=never`
 * then that one: no `ext::`, no switch to another scheme), no redirects (a redirect would be a host nobody
 * checked), and for http(s) the host pinned to the checked address (`http.curloptResolve`, git 2.37 and later;
 * older versions ignore it and are only checked). ssh resolves the name itself: checked, not pinned.
 */
async function gitNetworkArgs(url: URL, network: NetworkOptions): Promise<string[]> {
  const scheme = url.protocol.replace(/:$/, '');
  const args = ['-c', 'protocol.allow=never', '-c', `protocol.${scheme}.allow=always`];
  if (scheme === 'file') return args;
  const pinned = await checkHost(url.hostname, network.allowance, network.resolve);
  args.push('-c', 'http.followRedirects=false');
  if (scheme === 'https' || scheme === 'http') {
    const port = url.port || (scheme === 'https' ? '443' : '80');
    const address = net.isIPv6(pinned.address) ? `[${pinned.address}]` : pinned.address;
    args.push('-c', `http.curloptResolve=${bareHost(url.hostname)}:${port}:${address}`);
  }
  return args;
}

/**
 * `git clone --depth 1` into `dest`. Hooks are pointed at /dev/null, submodules are not fetched, only the URL's
 * transport is allowed (no `ext::` or other command transports), redirects are not followed, the host is checked
 * and pinned (`gitNetworkArgs`), and git never prompts (a private repository fails instead of hanging).
 */
export async function gitClone(url: URL, dest: string, network: NetworkOptions): Promise<void> {
  const args = [
    ...(await gitNetworkArgs(url, network)),
    '-c',
    'core.hooksPath=/dev/null',
    '-c',
    'core.symlinks=true', // links are checked out as links, so the tree check sees and refuses them
    'clone',
    '--depth',
    '1',
    '--no-recurse-submodules',
    '--single-branch',
    '--quiet',
    '--',
    url.href,
    dest,
  ];
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      {
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: 1024 * 1024,
        env: {
          ...process.env,
          GIT_TERMINAL_PROMPT: '0',
          GIT_ASKPASS: 'true',
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_LFS_SKIP_SMUDGE: '1',
        },
      },
      (error, _stdout, stderr) => {
        if (!error) return resolve();
        const reason =
          (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'git is not installed' : stderr.trim().split('\n').pop();
        reject(
          new InstallError('fetch', [problem('git-clone-failed', `git clone failed: ${reason || error.message}`)]),
        );
      },
    );
  });
}

/**
 * The bytes at `url`, at most `maxBytes` (`file:` reads a local file, for tests and air-gapped mirrors). http(s)
 * goes through `fetchChecked`: each hop's host checked, the connection pinned, redirects followed by hand.
 */
export async function download(url: URL, maxBytes: number, network: NetworkOptions): Promise<Buffer> {
  if (url.protocol === 'file:') {
    const stat = await fs.promises.stat(/*turbopackIgnore: true*/ url).catch(() => null);
    if (!stat?.isFile()) throw new InstallError('fetch', [problem('fetch-failed', `No such file: ${url.pathname}`)]);
    if (stat.size > maxBytes) throw tooBig(maxBytes);
    return fs.promises.readFile(/*turbopackIgnore: true*/ url);
  }
  return fetchChecked(url, {
    maxBytes,
    allowance: network.allowance,
    timeoutMs: FETCH_TIMEOUT_MS,
    ...(network.resolve ? { resolve: network.resolve } : {}),
    tooBig: () => tooBig(maxBytes),
  });
}

function tooBig(maxBytes: number): InstallError {
  return new InstallError('invalid', [
    problem('download-too-large', `The download is over ${maxBytes} bytes (install.maxDownloadBytes)`),
  ]);
}

const DIGEST = z
  .string()
  .regex(/^(sha256:)?[0-9a-fA-F]{64}$/, 'digest must be a sha256 (64 hex digits, optionally sha256:)');

/** skillchat's first index form (no `version`): each skill an archive with its digest. */
const archiveEntrySchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  url: z.string().min(1),
  digest: DIGEST,
});
const archiveIndexSchema = z.union([z.object({ skills: z.array(archiveEntrySchema) }), z.array(archiveEntrySchema)]);

/**
 * agent-skills-discovery-rfc v0.2.0 (`version`), what skillchat's own `/.well-known/agent-skills/index.json`
 * serves: every file listed with its digest, fetched from `{name}/{path}` beside the index, and a skill-level digest.
 */
const filesEntrySchema = z.object({
  name: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'name must be lowercase letters, digits and single hyphens'),
  description: z.string().optional(),
  digest: DIGEST,
  files: z.array(z.object({ path: z.string().min(1).max(1024), digest: DIGEST }), {
    error: 'files must be objects with path and digest (a v0.1.0 list of names has no digests to verify)',
  }),
  package: z.object({ url: z.string(), digest: DIGEST }).optional(),
});
const filesIndexSchema = z.object({
  version: z.string().regex(/^0\.\d+\.\d+$/, 'only index versions 0.x are understood (this one is newer)'),
  skills: z.array(filesEntrySchema),
});

/** The RFC's newer form (`$schema`): each skill one artifact, a SKILL.md or an archive, with its digest. */
const artifactEntrySchema = z.object({
  name: z.string().min(1),
  type: z.enum(['skill-md', 'archive']),
  description: z.string().optional(),
  url: z.string().min(1),
  digest: DIGEST,
});
const artifactIndexSchema = z.object({ $schema: z.string(), skills: z.array(artifactEntrySchema) });

/** What an index says to fetch for one skill, digests normalised to lowercase hex. */
export type IndexChoice =
  | { kind: 'archive'; name: string; url: URL; digest: string }
  | { kind: 'skill-md'; name: string; url: URL; digest: string }
  | { kind: 'files'; name: string; indexUrl: URL; digest: string; files: Array<{ path: string; digest: string }> };

const hex = (digest: string) => digest.replace(/^sha256:/, '').toLowerCase();

function invalid(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): InstallError {
  return new InstallError(
    'invalid',
    issues.map((i) => problem('index-invalid', `index.json ${i.path.map(String).join('.') || '(root)'}: ${i.message}`)),
  );
}

function pick<T extends { name: string }>(skills: readonly T[], name: string | undefined): T {
  const entry =
    name === undefined ? (skills.length === 1 ? skills[0] : undefined) : skills.find((s) => s.name === name);
  if (entry) return entry;
  const names = skills.map((s) => s.name).join(', ') || '(none)';
  const message =
    name === undefined
      ? `The index lists several skills; choose one: ${names}`
      : `The index has no skill "${name}"; it lists: ${names}`;
  throw new InstallError('invalid', [problem('index-no-entry', message)]);
}

function entryUrl(raw: string, indexUrl: URL, name: string): URL {
  let url: URL;
  try {
    url = new URL(raw, indexUrl);
  } catch {
    throw new InstallError('invalid', [problem('index-invalid', `Entry "${name}" has an invalid url`)]);
  }
  // A file: index must not point at the server's files over http, nor an http index at a file: path.
  if (url.protocol !== indexUrl.protocol && (url.protocol === 'file:' || indexUrl.protocol === 'file:')) {
    throw new InstallError('invalid', [problem('index-invalid', `Entry "${name}" points to another kind of location`)]);
  }
  return url;
}

/**
 * Reads an index and picks the entry to install: the one named `name`, or the only one. Three forms, told apart by
 * their top level: `$schema` (the RFC's artifact form), `version` (v0.2.0 with `files`), neither (skillchat's first
 * form: archives).
 */
export async function resolveIndexEntry(
  indexUrl: URL,
  name: string | undefined,
  maxBytes: number,
  network: NetworkOptions,
): Promise<IndexChoice> {
  const bytes = await download(indexUrl, maxBytes, network);
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new InstallError('invalid', [problem('index-invalid', 'The index is not valid JSON')]);
  }
  const top = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : {};
  if ('$schema' in top) {
    const parsed = artifactIndexSchema.safeParse(raw);
    if (!parsed.success) throw invalid(parsed.error.issues);
    const entry = pick(parsed.data.skills, name);
    const url = entryUrl(entry.url, indexUrl, entry.name);
    return { kind: entry.type, name: entry.name, url, digest: hex(entry.digest) };
  }
  if ('version' in top) {
    const parsed = filesIndexSchema.safeParse(raw);
    if (!parsed.success) throw invalid(parsed.error.issues);
    const entry = pick(parsed.data.skills, name);
    return {
      kind: 'files',
      name: entry.name,
      indexUrl,
      digest: hex(entry.digest),
      files: entry.files.map((f) => ({ path: f.path, digest: hex(f.digest) })),
    };
  }
  const parsed = archiveIndexSchema.safeParse(raw);
  if (!parsed.success) throw invalid(parsed.error.issues);
  const entry = pick(Array.isArray(parsed.data) ? parsed.data : parsed.data.skills, name);
  return {
    kind: 'archive',
    name: entry.name,
    url: entryUrl(entry.url, indexUrl, entry.name),
    digest: hex(entry.digest),
  };
}

/**
 * Fetches every file a v0.2.0 entry lists into `dest`: paths checked like archive entries before anything is
 * fetched, each file's digest checked as it arrives, the total capped at `install.maxBytes`, and at the end the
 * skill-level digest recomputed from what arrived. Returns the entries, for the checks every install goes through.
 */
export async function downloadIndexedFiles(
  choice: Extract<IndexChoice, { kind: 'files' }>,
  dest: string,
  limits: InstallLimits,
  network: NetworkOptions,
): Promise<ArchiveEntry[]> {
  const listed: ArchiveEntry[] = choice.files.map((f) => ({ path: f.path, kind: 'file', size: 0 }));
  const problems = checkEntries(listed, limits);
  if (choice.files.length > limits.maxFiles) {
    problems.push(problem('too-many-files', `${choice.files.length} files; the limit is ${limits.maxFiles}`));
  }
  if (!choice.files.some((f) => f.path === 'SKILL.md')) {
    problems.push(problem('skill-file-missing', `The index lists no SKILL.md for "${choice.name}"`));
  }
  if (problems.length > 0) throw new InstallError('invalid', problems);

  const base = `${encodeURIComponent(choice.name)}/`;
  const arrived: Array<{ path: string; digest: string }> = [];
  const entries: ArchiveEntry[] = [];
  let total = 0;
  for (const file of choice.files) {
    const url = new URL(base + file.path.split('/').map(encodeURIComponent).join('/'), choice.indexUrl);
    const bytes = await download(url, Math.min(limits.maxDownloadBytes, limits.maxBytes - total + 1), network);
    total += bytes.length;
    if (total > limits.maxBytes) {
      throw new InstallError('invalid', [
        problem('too-large', `The files are over ${limits.maxBytes} bytes (install.maxBytes)`),
      ]);
    }
    const actual = sha256Hex(bytes);
    if (actual !== file.digest) {
      throw new InstallError('invalid', [
        problem('digest-mismatch', `sha256 is ${actual}; the index says ${file.digest}`, file.path),
      ]);
    }
    const target = path.join(/*turbopackIgnore: true*/ dest, ...file.path.split('/'));
    await fs.promises.mkdir(/*turbopackIgnore: true*/ path.dirname(/*turbopackIgnore: true*/ target), {
      recursive: true,
      mode: 0o755,
    });
    await fs.promises.writeFile(/*turbopackIgnore: true*/ target, bytes, { flag: 'wx', mode: 0o644 });
    arrived.push({ path: file.path, digest: actual });
    entries.push({ path: file.path, kind: 'file', size: bytes.length });
  }
  const recomputed = hex(skillDigest(arrived));
  if (recomputed !== choice.digest) {
    throw new InstallError('invalid', [
      problem('digest-mismatch', `The skill digest of the files is ${recomputed}; the index says ${choice.digest}`),
    ]);
  }
  return entries;
}

export function verifyDigest(bytes: Buffer, expected: string): void {
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== expected) {
    throw new InstallError('invalid', [
      problem('digest-mismatch', `sha256 of the download is ${actual}; the index says ${expected}`),
    ]);
  }
}
