/**
 * The one confined reader: every read of a file inside a skill folder (the `skills_readResource` tool, skill
 * activation, the CLI, the admin page) goes through `readSkillResource`. The path comes from a model or a person,
 * so it is untrusted; the order of checks follows docs (security.md, "Reading a file inside a skill directory").
 *
 * Policies:
 * - Symlinks inside the skill folder are followed when their target stays inside it (skills ship them); any link,
 *   to a file or a folder, that leads outside is refused.
 * - Hard links are allowed. They cannot be told apart from a path (`nlink > 1` is only a hint) and package managers
 *   (pnpm, some skill installers) hard-link files on purpose; only someone who can already write the skill folder
 *   can create one, and that person could equally copy the file in.
 * - Binary files (a NUL byte, or bytes that are not UTF-8, in what was read) are described, never dumped.
 */
import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_LIMITS } from '../../limits';
import { isInside } from '../../paths';
import { splitFrontmatter } from '../load/frontmatter';
import type { SkillOrigin } from '../types';

export type ResourceErrorCode = 'invalid-path' | 'outside-skill' | 'not-found' | 'not-a-file' | 'unreadable';

export type ResourceResult =
  | {
      ok: true;
      /** Relative to the skill folder, posix separators, as normalised (`./a//b` -> `a/b`). */
      path: string;
      /** The text (possibly truncated), or a one-line description when `binary`. */
      content: string;
      /** Size of the file on disk. */
      bytes: number;
      truncated: boolean;
      binary: boolean;
      /** Guessed from the extension. */
      mediaType: string;
      notice?: string;
      /** The bytes read (at most `maxBytes`), binary or not: only with `withBytes`, for serving a file as it is. */
      data?: Buffer;
    }
  | {
      ok: false;
      /** As given, sanitised for display (the normalised path once it passed the syntactic check). */
      path: string;
      code: ResourceErrorCode;
      error: string;
    };

export type InstructionsErrorCode = ResourceErrorCode | 'invalid-skill-file';

export type InstructionsResult =
  | {
      ok: true;
      /** `SKILL.md` or `skill.md`. */
      path: string;
      /** The Markdown after the frontmatter. */
      body: string;
      /** The YAML between the `---` fences, without them. */
      frontmatterText: string;
      /** 1-based line of the skill file where `body` starts. */
      bodyStartLine: number;
      bytes: number;
      truncated: boolean;
      notice?: string;
    }
  | { ok: false; path: string; code: InstructionsErrorCode; error: string };

export interface ReadOptions {
  /** Bytes of content returned; more is truncated with a notice. Default `DEFAULT_LIMITS.maxResourceBytes`. */
  maxBytes?: number;
  /** Also return the bytes read (`data`): the skill server publishes files byte for byte, with their digests. */
  withBytes?: boolean;
}

/** Longer paths are not something a skill's own references use; the cap also bounds work before the disk. */
export const MAX_PATH_LENGTH = 1024;
/** NAME_MAX on the filesystems we run on is 255 bytes (not characters). */
export const MAX_SEGMENT_BYTES = 255;

const EXAMPLE = 'give a path relative to the skill folder, e.g. "references/guide.md"';

export type NormalisedPath = { ok: true; path: string; segments: string[] } | { ok: false; reason: string };

/**
 * Pure syntactic check of an untrusted relative path, before anything touches the disk. Deliberately does not
 * URL-decode: `%2e%2e` is a literal (and almost certainly nonexistent) file name.
 */
export function normaliseResourcePath(relPath: unknown): NormalisedPath {
  if (typeof relPath !== 'string') return { ok: false, reason: `the path must be a string; ${EXAMPLE}` };
  if (relPath.trim() === '') return { ok: false, reason: `the path is empty; ${EXAMPLE}` };
  if (relPath.length > MAX_PATH_LENGTH) {
    return { ok: false, reason: `the path is longer than ${MAX_PATH_LENGTH} characters` };
  }
  // C0 controls and DEL: NUL truncates paths in C APIs, newlines forge log lines and tool output.
  if (/[\x00-\x1f\x7f]/.test(relPath)) return { ok: false, reason: 'control characters are not permitted' };
  // UNC first so `\\server\share` and `//server/share` get the specific message, not the generic ones below.
  if (/^[\\/]{2}/.test(relPath)) return { ok: false, reason: `network (UNC) paths are not permitted; ${EXAMPLE}` };
  if (/^[A-Za-z]:/.test(relPath)) return { ok: false, reason: `drive paths are not permitted; ${EXAMPLE}` };
  // Windows treats `\` as a separator, so `a\..\..\x` would traverse there; one separator everywhere keeps it simple.
  if (relPath.includes('\\')) return { ok: false, reason: 'backslashes are not permitted; use "/" between folders' };
  if (relPath.startsWith('/')) return { ok: false, reason: `absolute paths are not permitted; ${EXAMPLE}` };
  // Shells and some libraries expand `~`; a skill's files never need it.
  if (relPath.startsWith('~')) return { ok: false, reason: `"~" (home folder) paths are not permitted; ${EXAMPLE}` };

  const segments: string[] = [];
  for (const segment of relPath.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') return { ok: false, reason: '".." segments are not permitted' };
    if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES) {
      return { ok: false, reason: `a path segment is longer than ${MAX_SEGMENT_BYTES} bytes` };
    }
    if (process.platform === 'win32' && /[:<>|?*"]|[. ]$/.test(segment)) {
      // Windows strips trailing dots and spaces (`.. ` becomes `..`) and reads `a:b` as an alternate data stream.
      return { ok: false, reason: 'characters Windows reinterprets (":<>|?*\\", or a trailing dot or space)' };
    }
    segments.push(segment);
  }
  if (segments.length === 0) return { ok: false, reason: `the path names the skill folder itself; ${EXAMPLE}` };
  return { ok: true, path: segments.join('/'), segments };
}

/** For echoing an untrusted path in a message: no control or bidi characters, bounded length. */
export function displayPath(relPath: unknown): string {
  if (typeof relPath !== 'string') return `(${typeof relPath})`;
  const escaped = relPath.replace(
    /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return escaped.length > 200 ? `${escaped.slice(0, 200)}…` : escaped;
}

/** Node error code, or undefined for non-system errors. */
function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

type Failure = Extract<ResourceResult, { ok: false }>;

/** Maps a system error to a message that names only the relative path (Node's own messages hold absolute paths). */
function fromSystemError(shown: string, skillName: string, error: unknown): Failure {
  const code = errnoCode(error);
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return fail(shown, 'not-found', `File "${shown}" does not exist in skill "${skillName}"`);
    case 'EISDIR':
      return fail(shown, 'not-a-file', `Path "${shown}" is a folder, not a file`);
    case 'ENXIO': // open() of a socket
      return fail(shown, 'not-a-file', `Path "${shown}" is not a regular file`);
    case 'ELOOP':
      // With O_NOFOLLOW on an already-resolved path this means the last component became a symlink meanwhile.
      return fail(
        shown,
        'unreadable',
        `Path "${shown}" could not be read: too many symlinks, or it changed while being read`,
      );
    case 'ENAMETOOLONG':
      return fail(shown, 'invalid-path', `Path "${shown}" is not allowed: it is too long`);
    case 'EACCES':
    case 'EPERM':
      return fail(shown, 'unreadable', `File "${shown}" could not be read: permission denied`);
    default:
      return fail(shown, 'unreadable', `File "${shown}" could not be read${code ? ` (${code})` : ''}`);
  }
}

function fail(shown: string, code: ResourceErrorCode, error: string): Failure {
  return { ok: false, path: shown, code, error };
}

// Windows has neither constant, and OR-ing `undefined` silently protects nothing: `?? 0` makes that visible. There
// the post-open inode check is what catches a swapped path, and FIFOs and devices are not files in a folder.
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/**
 * After open: is the descriptor still a file inside the root? "realpath, then open by name" races with a folder
 * swapped for a symlink, so the opened descriptor itself is checked. On Linux `/proc/self/fd/N` names what was
 * actually opened. Elsewhere (or without procfs) the path is resolved again and must be inside the root and be
 * the same inode as the descriptor: an inode cannot be reachable inside the root and be another file, and a hard
 * link to it is allowed by policy.
 */
async function openedFileIsInside(
  handle: FileHandle,
  realRoot: string,
  target: string,
  opened: fs.BigIntStats,
): Promise<boolean> {
  if (process.platform === 'linux') {
    try {
      return isInside(realRoot, await fs.promises.readlink(`/proc/self/fd/${handle.fd}`));
    } catch {
      // No procfs (some containers): fall through to the inode check.
    }
  }
  try {
    // realpath and stat are separate lookups, so a folder swapped between them can still slip through. Resolving
    // again and requiring the same answer narrows the window; it does not close it (against a process swapping in
    // a tight loop, a second resolve lets about a tenth as many swaps through as one; the /proc answer above lets
    // none through). Node has no openat(), so without procfs this is the best available.
    const before = await fs.promises.realpath(target);
    if (!isInside(realRoot, before)) return false;
    const now = await fs.promises.stat(before, { bigint: true });
    const after = await fs.promises.realpath(target);
    return after === before && now.dev === opened.dev && now.ino === opened.ino;
  } catch {
    return false;
  }
}

/** Reads up to `limit` bytes; a growing file or short reads cannot make it read more. */
export async function readAtMost(handle: FileHandle, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < limit) {
    const chunk = Buffer.alloc(Math.min(64 * 1024, limit - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, total);
    if (bytesRead === 0) break;
    chunks.push(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead));
    total += bytesRead;
  }
  return Buffer.concat(chunks, total);
}

/** Largest cut <= `max` that does not split a UTF-8 sequence (needs the byte at `max`, so `data.length > max`). */
function utf8Boundary(data: Buffer, max: number): number {
  let end = max;
  // Continuation bytes are 10xxxxxx; a sequence is at most 4 bytes, so at most 3 steps back.
  while (end > 0 && max - end < 3 && ((data[end] ?? 0) & 0xc0) === 0x80) end--;
  return end;
}

const MEDIA_TYPES: Record<string, string> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.toml': 'application/toml',
  '.xml': 'application/xml',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.css': 'text/css',
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.cjs': 'text/javascript',
  '.ts': 'text/typescript',
  '.tsx': 'text/typescript',
  '.py': 'text/x-python',
  '.sh': 'text/x-shellscript',
  '.bash': 'text/x-shellscript',
  '.rb': 'text/x-ruby',
  '.go': 'text/x-go',
  '.rs': 'text/x-rust',
  '.java': 'text/x-java',
  '.c': 'text/x-c',
  '.h': 'text/x-c',
  '.cpp': 'text/x-c++',
  '.sql': 'application/sql',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/vnd.microsoft.icon',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.tar': 'application/x-tar',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

export function guessMediaType(relPath: string, binary: boolean): string {
  return MEDIA_TYPES[path.posix.extname(relPath).toLowerCase()] ?? (binary ? 'application/octet-stream' : 'text/plain');
}

function resolveMaxBytes(options: ReadOptions | undefined): number {
  const maxBytes = options?.maxBytes ?? DEFAULT_LIMITS.maxResourceBytes;
  // A bad limit is a caller bug (config is validated), not an expected problem: throw rather than guess.
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new RangeError(`maxBytes must be a positive integer`);
  return maxBytes;
}

/**
 * Reads `relPath` inside `skill.dir`. `skill` must come from the registry (looked up by name), never be built from
 * user input. Expected problems come back as `{ ok: false, code, error }` naming only the relative path.
 */
export async function readSkillResource(
  skill: { name: string; dir: string; origin?: Pick<SkillOrigin, 'files'> },
  relPath: string,
  options?: ReadOptions,
): Promise<ResourceResult> {
  const maxBytes = resolveMaxBytes(options);
  const given = displayPath(relPath);
  const normalised = normaliseResourcePath(relPath);
  if (!normalised.ok) {
    return fail(given, 'invalid-path', `Path "${given}" is not allowed: ${normalised.reason}`);
  }
  const shown = normalised.path;
  // A served skill's file comes from its server, verified, into the host's copy; then it is read like any other.
  if (skill.origin) {
    const fetched = await skill.origin.files.fetch(shown);
    if (!fetched.ok) return fail(shown, fetched.code, fetched.error);
  }

  let realRoot: string;
  try {
    realRoot = await fs.promises.realpath(skill.dir);
  } catch {
    return fail(
      shown,
      'unreadable',
      `The folder of skill "${skill.name}" could not be read (it may have moved since the last scan)`,
    );
  }

  const target = path.join(realRoot, ...normalised.segments);
  let real: string;
  try {
    real = await fs.promises.realpath(target);
  } catch (error) {
    return fromSystemError(shown, skill.name, error);
  }
  if (!isInside(realRoot, real)) {
    return fail(shown, 'outside-skill', `Path "${shown}" is not allowed: it leads outside the skill folder`);
  }

  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer. O_NOFOLLOW: `real` has no symlinks left, so a link
    // appearing now is a swap. Devices and FIFOs are opened but refused by fstat below, before any read.
    handle = await fs.promises.open(real, OPEN_FLAGS);
  } catch (error) {
    return fromSystemError(shown, skill.name, error);
  }
  try {
    const stat = await handle.stat({ bigint: true });
    if (stat.isDirectory()) return fail(shown, 'not-a-file', `Path "${shown}" is a folder, not a file`);
    if (!stat.isFile()) {
      return fail(shown, 'not-a-file', `Path "${shown}" is not a regular file (it is a FIFO, socket or device)`);
    }
    if (!(await openedFileIsInside(handle, realRoot, target, stat))) {
      return fail(
        shown,
        'outside-skill',
        `Path "${shown}" is not allowed: it changed while being opened and now leads outside the skill folder`,
      );
    }

    const data = await readAtMost(handle, maxBytes + 1);
    // A file that grew since fstat still reports at least what was read.
    const bytes = Math.max(Number(stat.size), data.length);
    const truncated = data.length > maxBytes;
    const end = truncated ? utf8Boundary(data, maxBytes) : data.length;
    const text = data.subarray(0, end);
    const binary = text.includes(0) || !isUtf8(text);
    const mediaType = guessMediaType(shown, binary);
    const raw = options?.withBytes ? { data: text } : {};
    if (binary) {
      return {
        ok: true,
        path: shown,
        content: `Binary file ${shown} (${mediaType}, ${bytes} bytes) — not shown.`,
        bytes,
        truncated: false,
        binary: true,
        mediaType,
        ...raw,
      };
    }
    // Decoded as is (a BOM included): callers such as the CLI promise the content byte for byte.
    const content = text.toString('utf8');
    return {
      ok: true,
      path: shown,
      content,
      bytes,
      truncated,
      binary: false,
      mediaType,
      ...(truncated ? { notice: `[truncated: showing the first ${end} of ${bytes} bytes]` } : {}),
      ...raw,
    };
  } catch (error) {
    return fromSystemError(shown, skill.name, error);
  } finally {
    await handle.close().catch(() => {});
  }
}

/**
 * Reads the skill file (`SKILL.md` or `skill.md`, from `skill.file`) through `readSkillResource`, so activation
 * gets the same confinement as any resource, and splits off the frontmatter.
 */
export async function readSkillInstructions(
  skill: { name: string; dir: string; file: string; origin?: Pick<SkillOrigin, 'files'> },
  options?: ReadOptions,
): Promise<InstructionsResult> {
  const fileName = path.basename(skill.file);
  const result = await readSkillResource(skill, fileName, options);
  if (!result.ok) return result;
  if (result.binary) {
    return {
      ok: false,
      path: result.path,
      code: 'invalid-skill-file',
      error: `${result.path} of skill "${skill.name}" is not UTF-8 text`,
    };
  }
  const split = splitFrontmatter(result.content);
  if (!split.ok) {
    return {
      ok: false,
      path: result.path,
      code: 'invalid-skill-file',
      error: `${result.path} of skill "${skill.name}" could not be split into frontmatter and body: ${split.message}`,
    };
  }
  return {
    ok: true,
    path: result.path,
    body: split.body,
    frontmatterText: split.yaml,
    bodyStartLine: split.bodyStartLine,
    bytes: result.bytes,
    truncated: result.truncated,
    ...(result.notice ? { notice: result.notice } : {}),
  };
}
