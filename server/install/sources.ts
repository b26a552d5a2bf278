/**
 * Getting a source onto disk, only on an admin's explicit request: a git repository (the system `git`, shallow, no
 * submodules, no hooks), an archive URL, or an index (`index.json`) whose entry's archive must match its sha256
 * digest. Downloads are capped at `install.maxDownloadBytes` and time out; nothing here runs at start-up. Every
 * host is checked against the network policy first (network.ts: public addresses only unless the operator allows
 * more), and downloads connect to the address that was checked.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { z } from 'zod';
import { bareHost, checkHost, fetchChecked, type NetworkAllowance, type Resolver } from './network';
import { InstallError, problem } from './types';

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
    const stat = await fs.promises.stat(url).catch(() => null);
    if (!stat?.isFile()) throw new InstallError('fetch', [problem('fetch-failed', `No such file: ${url.pathname}`)]);
    if (stat.size > maxBytes) throw tooBig(maxBytes);
    return fs.promises.readFile(url);
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

const indexEntrySchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  url: z.string().min(1),
  digest: z
    .string()
    .regex(/^(sha256:)?[0-9a-fA-F]{64}$/, 'digest must be a sha256 (64 hex digits, optionally sha256:)'),
});
const indexSchema = z.union([z.object({ skills: z.array(indexEntrySchema) }), z.array(indexEntrySchema)]);

export type IndexEntry = z.infer<typeof indexEntrySchema>;

/** The index entry to install: the one named `name`, or the only one. */
export async function resolveIndexEntry(
  indexUrl: URL,
  name: string | undefined,
  maxBytes: number,
  network: NetworkOptions,
): Promise<{ archiveUrl: URL; digest: string }> {
  const bytes = await download(indexUrl, maxBytes, network);
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new InstallError('invalid', [problem('index-invalid', 'The index is not valid JSON')]);
  }
  const parsed = indexSchema.safeParse(raw);
  if (!parsed.success) {
    throw new InstallError(
      'invalid',
      parsed.error.issues.map((i) =>
        problem('index-invalid', `index.json ${i.path.join('.') || '(root)'}: ${i.message}`),
      ),
    );
  }
  const skills = Array.isArray(parsed.data) ? parsed.data : parsed.data.skills;
  const entry =
    name === undefined ? (skills.length === 1 ? skills[0] : undefined) : skills.find((s) => s.name === name);
  if (!entry) {
    const names = skills.map((s) => s.name).join(', ') || '(none)';
    const message =
      name === undefined
        ? `The index lists several skills; choose one: ${names}`
        : `The index has no skill "${name}"; it lists: ${names}`;
    throw new InstallError('invalid', [problem('index-no-entry', message)]);
  }
  let archiveUrl: URL;
  try {
    archiveUrl = new URL(entry.url, indexUrl);
  } catch {
    throw new InstallError('invalid', [problem('index-invalid', `Entry "${entry.name}" has an invalid url`)]);
  }
  // A file: index must not point at the server's files over http, nor an http index at a file: path.
  if (archiveUrl.protocol !== indexUrl.protocol && (archiveUrl.protocol === 'file:' || indexUrl.protocol === 'file:')) {
    throw new InstallError('invalid', [
      problem('index-invalid', `Entry "${entry.name}" points to another kind of location`),
    ]);
  }
  return { archiveUrl, digest: entry.digest.replace(/^sha256:/, '').toLowerCase() };
}

export function verifyDigest(bytes: Buffer, expected: string): void {
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== expected) {
    throw new InstallError('invalid', [
      problem('digest-mismatch', `sha256 of the download is ${actual}; the index says ${expected}`),
    ]);
  }
}
