/**
 * Removing trees a script made, whatever their shape. Node's `fs.rm` walks by full path and gives up
 * (ENAMETOOLONG) on a tree deeper than PATH_MAX, which a script builds with mkdir + cd; coreutils `rm` descends
 * with openat and removes any depth, and `--one-file-system` keeps it off anything mounted inside. A folder a
 * script made unreadable (chmod 000, same uid as this server when not root) is opened up and removed on a second try.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Removes `names` (relative to `dir`; links removed, never followed). Returns false when something is left. */
export async function removeTrees(dir: string, names: string[]): Promise<boolean> {
  if (names.length === 0) return true;
  const rm = () =>
    execFileAsync('rm', ['-rf', '--one-file-system', '--', ...names], { cwd: dir }).then(
      () => true,
      () => false,
    );
  if (await rm()) return true;
  // chmod -R changes no link's target (links met in the walk are not followed).
  await execFileAsync('chmod', ['-R', 'u+rwx', '--', ...names], { cwd: dir }).catch(() => {});
  return rm();
}
