/**
 * Whether `.next` holds a build of the current sources: `npm start` builds when it does not (bin/start.ts), and the
 * bench measures no built server on a stale build (bench/server-start.ts `hasBuild`).
 */
import fs from 'node:fs';
import path from 'node:path';

/** The newest modification time among the files a build is made from. */
function newestSourceMtime(appDir: string): number {
  let newest = 0;
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(p);
      else newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  };
  for (const dir of ['app', 'components', 'server']) {
    if (fs.existsSync(path.join(appDir, dir))) visit(path.join(appDir, dir));
  }
  for (const file of ['next.config.ts', 'proxy.ts', 'instrumentation.ts', 'package.json', 'package-lock.json']) {
    const p = path.join(appDir, file);
    if (fs.existsSync(p)) newest = Math.max(newest, fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** True when there is no build, or a source file is newer than it. */
export function needsBuild(appDir: string): boolean {
  const buildId = path.join(appDir, '.next', 'BUILD_ID');
  return !fs.existsSync(buildId) || fs.statSync(buildId).mtimeMs < newestSourceMtime(appDir);
}
