/** What installing works with: the entries of an archive or a checked-out tree, and the reasons one is refused. */
import type { InstallConfig } from '../config';

/** The caps, and which addresses a URL install may reach (absent: public addresses only). */
export type InstallLimits = Pick<InstallConfig, 'maxFiles' | 'maxBytes' | 'maxRatio' | 'maxDownloadBytes'> &
  Partial<Pick<InstallConfig, 'allowPrivateNetworks' | 'allowHosts'>>;

export type EntryKind = 'file' | 'directory' | 'symlink' | 'hardlink' | 'device' | 'special';

/** One entry of an archive (or a file of a checked-out tree), before anything is written. */
export interface ArchiveEntry {
  /** As stored: posix separators, relative when the archive is well formed. */
  path: string;
  kind: EntryKind;
  /** Uncompressed bytes. */
  size: number;
  /** Bytes in the archive, for the ratio check; absent for a tree. */
  compressedSize?: number;
}

/** One reason an install is refused; `path` is the entry inside the archive (never a server path). */
export interface InstallProblem {
  code: string;
  message: string;
  path?: string;
}

/**
 * `invalid`: the source breaks a rule (400); `conflict`: the name is taken (409); `not-found`: no such installed
 * skill (404); `fetch`: the URL could not be fetched or cloned (400).
 */
export type InstallErrorKind = 'invalid' | 'conflict' | 'not-found' | 'fetch';

export class InstallError extends Error {
  override name = 'InstallError';
  constructor(
    readonly kind: InstallErrorKind,
    readonly problems: InstallProblem[],
  ) {
    super(problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; '));
  }
}

export function problem(code: string, message: string, path?: string): InstallProblem {
  return path === undefined ? { code, message } : { code, message, path };
}
