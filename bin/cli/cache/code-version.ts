/**
 * The version of the code that wrote a cache file (the scan cache, the kept answers): a file written by other code is
 * not read. Derived, never bumped by hand: a change to an entry's shape or a file's layout is a change to this code,
 * and so a new version.
 *
 * - The bundle (bin/dist/): bin/build-cli.mjs writes the sha256 of the bundled files into `code-version` beside them.
 *   One small read; the same sources, libraries and build options give the same bytes, so a rebuild of unchanged
 *   code (every `npm install`) keeps the caches.
 * - The sources (tsx, tests): the sizes and mtimes of the code files under server/ and bin/, stamped when first
 *   asked (a few hundred stats, on a path that spends far longer compiling anyway).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_DIR } from '../command';

/** The file bin/build-cli.mjs writes beside the bundle. */
export const CODE_VERSION_FILE = 'code-version';

/** Not code the CLI runs: skill folders of tests, the bundle (stamped as a whole when run), dependencies. */
const SKIPPED_FOLDERS = new Set(['fixtures', 'dist', 'node_modules']);

/**
 * The sizes and mtimes of the code files (.ts, .js, .cjs, .mjs; not tests) in `dirs` and below, as a digest: any
 * edit changes it, a source map or a skill file does not.
 */
export function codeStamp(...dirs: string[]): string {
  const hash = createHash('sha256');
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) visit(file);
      } else if (/\.(ts|[cm]?js)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) {
        const stat = fs.statSync(file, { throwIfNoEntry: false });
        if (stat) hash.update(`${file}\0${stat.size}\0${stat.mtimeMs}\0`);
      }
    }
  };
  try {
    for (const dir of dirs) visit(dir);
  } catch {
    hash.update(String(Date.now())); // unreadable: never match, so never reuse
  }
  return hash.digest('hex').slice(0, 24);
}

let version: string | undefined;

/** The running code's version (see above); computed once per process. */
export function codeVersion(): string {
  if (version !== undefined) return version;
  try {
    // In the bundle this module's folder is bin/dist/; in the sources there is no such file here.
    version = fs.readFileSync(path.join(import.meta.dirname, CODE_VERSION_FILE), 'utf8').trim();
  } catch {
    version = codeStamp(path.join(PROJECT_DIR, 'server'), path.join(PROJECT_DIR, 'bin'));
  }
  return version;
}
