/**
 * The app's view of skills, for `list` and `match`: the configured roots (or `--root` folders instead) scanned by
 * the same discovery the server runs, with the same limits.
 */
import path from 'node:path';
import { type AppConfig, loadConfig } from '../../server/config';
import { discoverSkills } from '../../server/skills/discovery';
import type { DiscoveryResult, SkillRoot } from '../../server/skills/types';

export { PROJECT_DIR } from './command';

import { PROJECT_DIR } from './command';

/**
 * The app reads its config relative to the folder it runs in, which is the project folder; the CLI must read the
 * same file when started from elsewhere. SKILLCHAT_APP_DIR still wins, as it does for the app.
 */
export function loadAppConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  return loadConfig({ appDir: env.SKILLCHAT_APP_DIR ?? PROJECT_DIR, env });
}

/**
 * `--root DIR` folders replace the configured roots, in the order given (first = highest precedence). They are
 * resolved against the working directory, like any path typed in a shell, and are `configured` roots, so a
 * missing one is reported.
 */
export function rootsFromOptions(dirs: readonly string[], config: AppConfig): SkillRoot[] {
  if (dirs.length === 0) return config.roots;
  return dirs.map((dir) => ({ path: path.resolve(dir), scope: 'project', kind: 'configured' }));
}

export async function discover(rootDirs: readonly string[]): Promise<{ config: AppConfig; result: DiscoveryResult }> {
  const config = loadAppConfig();
  const result = await discoverSkills(rootsFromOptions(rootDirs, config), { limits: config.limits });
  return { config, result };
}
