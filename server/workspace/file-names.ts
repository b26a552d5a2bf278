/**
 * File names in a chat workspace are safe to use as one path segment anywhere (a URL, a shell, a zip):
 * no separators, no `..`, no control characters, no leading dots (hidden files, `.` and `..`), at most 200 bytes.
 * Uploads are one such segment; a script may make folders, whose paths are such segments joined by `/`.
 */
import path from 'node:path';

export const MAX_NAME_BYTES = 200;

/** A safe version of `raw`, or null when nothing usable is left (then the caller names the file itself). */
export function safeFileName(raw: string): string | null {
  let name = raw.normalize('NFC');
  // Browsers send a bare name, but a crafted request may send a path: keep its last segment.
  name = name.split(/[/\\]/).pop() ?? '';
  name = name.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '');
  name = name.replace(/^[\s.]+/, '').trimEnd();
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) {
    const ext = path.posix.extname(name).slice(0, 16);
    let stem = name.slice(0, name.length - ext.length);
    while (Buffer.byteLength(stem + ext) > MAX_NAME_BYTES) stem = stem.slice(0, -1);
    name = stem + ext;
  }
  return name === '' ? null : name;
}

/** Is `name` already what `safeFileName` would make of it? Used to refuse crafted names in URLs. */
export function isSafeFileName(name: string): boolean {
  return safeFileName(name) === name;
}

/** `name` when free, else `stem (2).ext`, `stem (3).ext`, ... */
export function uniqueName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  const ext = path.posix.extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let n = 2; ; n++) {
    const candidate = `${stem} (${n})${ext}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** How deep a path in the workspace may go (folders a script made): deeper files are not listed nor served. */
export const MAX_PATH_DEPTH = 16;
const MAX_PATH_BYTES = 1024;

/**
 * A path inside the workspace as a URL or a listing names it (`pages/p-1.png`), or null: relative, `/`-separated,
 * every segment a safe file name (so no `..`, `.`, empty segment, backslash, control character or hidden name), at
 * most MAX_PATH_DEPTH segments. An encoded `..` reaches here decoded and is refused like a plain one.
 */
export function safeRelativePath(raw: string): string | null {
  if (raw === '' || Buffer.byteLength(raw) > MAX_PATH_BYTES) return null;
  const segments = raw.split('/');
  if (segments.length > MAX_PATH_DEPTH) return null;
  return segments.every(isSafeFileName) ? segments.join('/') : null;
}
