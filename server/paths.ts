/**
 * Path containment, the one derivation: by path arithmetic, not a string prefix (`/x/skill-evil` starts with
 * `/x/skill`). On Windows a different drive makes `relative` return an absolute path.
 */
import path from 'node:path';

/** `candidate` relative to `root` as a posix path ('' for the root itself), or null when it is outside. */
export function relativeInside(root: string, candidate: string): string | null {
  const rel = path.relative(root, candidate);
  if (rel === '') return '';
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return null;
  return rel.split(path.sep).join('/');
}

export function isInside(root: string, candidate: string): boolean {
  return relativeInside(root, candidate) !== null;
}
