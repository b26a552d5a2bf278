/**
 * The archive rules, on entry metadata alone, so nothing is written before an archive passes: no absolute paths,
 * no `..`, no links or special files, no two names that differ only by case (they would overwrite each other on
 * macOS and Windows, and hide one file from review), and caps on files, bytes and compression ratio.
 */
import { type ArchiveEntry, type InstallLimits, type InstallProblem, problem } from './problems';

/** A ratio is judged only above this size: a small, very compressible file is harmless. */
export const RATIO_FLOOR_BYTES = 1024 * 1024;

/** Path problems listed one by one before the rest are summarised (a hostile archive can have millions). */
const LISTED_PATH_PROBLEMS = 50;

function pathProblem(entryPath: string): InstallProblem | null {
  if (entryPath === '') return problem('empty-path', 'An entry has an empty name');
  if (entryPath.includes('\0')) return problem('invalid-path', 'The name contains a NUL character', entryPath);
  if (entryPath.includes('\\')) {
    return problem('invalid-path', 'The name contains a backslash (zip names use /)', entryPath);
  }
  if (entryPath.startsWith('/') || /^[A-Za-z]:/.test(entryPath)) {
    return problem('absolute-path', 'Absolute paths are not allowed', entryPath);
  }
  if (entryPath.split('/').includes('..')) {
    return problem('parent-path', "Paths with '..' are not allowed", entryPath);
  }
  return null;
}

function kindProblem(entry: ArchiveEntry): InstallProblem | null {
  switch (entry.kind) {
    case 'symlink':
      return problem('symlink', 'Symbolic links are not allowed', entry.path);
    case 'hardlink':
      return problem('hardlink', 'Hard links are not allowed', entry.path);
    case 'device':
      return problem('device', 'Device files are not allowed', entry.path);
    case 'special':
      return problem('special-file', 'FIFOs and sockets are not allowed', entry.path);
    default:
      return null;
  }
}

/**
 * Every rule an archive's entries break (empty when it may be unpacked). `partial`: the entries are the first ones
 * of a longer listing, so their totals are lower bounds: the caller reports the count, and bytes are "more than".
 */
export function checkEntries(
  entries: readonly ArchiveEntry[],
  limits: InstallLimits,
  { partial = false }: { partial?: boolean } = {},
): InstallProblem[] {
  const found: InstallProblem[] = [];
  const seen = new Map<string, string>();
  let files = 0;
  let bytes = 0;
  let compressed = 0;
  for (const entry of entries) {
    const bad = pathProblem(entry.path) ?? kindProblem(entry);
    if (bad) found.push(bad);
    const clean = entry.path.replace(/\/+$/, '');
    const folded = clean.normalize('NFC').toLowerCase();
    const earlier = seen.get(folded);
    if (earlier !== undefined) {
      found.push(
        earlier === clean
          ? problem('duplicate-path', 'The name appears twice', entry.path)
          : problem('case-clash', `Differs from '${earlier}' only by case`, entry.path),
      );
    } else seen.set(folded, clean);
    if (entry.kind === 'directory') continue;
    files++;
    bytes += entry.size;
    compressed += entry.compressedSize ?? entry.size;
    if (
      entry.compressedSize !== undefined &&
      entry.size >= RATIO_FLOOR_BYTES &&
      entry.size > entry.compressedSize * limits.maxRatio
    ) {
      const ratio = entry.compressedSize === 0 ? 'unbounded' : `${Math.round(entry.size / entry.compressedSize)}:1`;
      found.push(
        problem(
          'compression-ratio',
          `Compression ratio ${ratio} is over the limit of ${limits.maxRatio}:1 (a zip bomb?)`,
          entry.path,
        ),
      );
    }
  }
  const listed = found.slice(0, LISTED_PATH_PROBLEMS);
  if (found.length > LISTED_PATH_PROBLEMS) {
    listed.push(problem('more-problems', `${found.length - LISTED_PATH_PROBLEMS} more entries break the rules above`));
  }
  if (files > limits.maxFiles && !partial) {
    listed.push(problem('too-many-files', `${files} files; the limit is ${limits.maxFiles} (install.maxFiles)`));
  }
  if (bytes > limits.maxBytes) {
    const size = `${partial ? 'more than ' : ''}${bytes} bytes`;
    listed.push(problem('too-large', `Unpacks to ${size}; the limit is ${limits.maxBytes} (install.maxBytes)`));
  }
  if (
    bytes >= RATIO_FLOOR_BYTES &&
    bytes > compressed * limits.maxRatio &&
    !found.some((p) => p.code === 'compression-ratio')
  ) {
    listed.push(
      problem(
        'compression-ratio',
        `The archive expands ${Math.round(bytes / Math.max(compressed, 1))} times; the limit is ${limits.maxRatio} (a zip bomb?)`,
      ),
    );
  }
  return listed;
}
