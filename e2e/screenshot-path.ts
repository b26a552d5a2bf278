/**
 * Where e2e pictures go. A normal run (`npm test`) writes them under the ignored `test-results/screenshots`, so the
 * work tree stays clean; `npm run screenshots` sets SKILLCHAT_SCREENSHOTS=update and refreshes the tracked images
 * the README shows (`e2e/screenshots`).
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.dirname(import.meta.dirname);

export function screenshotPath(name: string): string {
  const dir =
    process.env.SKILLCHAT_SCREENSHOTS === 'update'
      ? path.join(root, 'e2e', 'screenshots')
      : path.join(root, 'test-results', 'screenshots');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}
