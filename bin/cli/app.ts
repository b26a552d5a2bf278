/**
 * The app's view of skills, for `list` and `match`: the configured roots (or `--root` folders instead) scanned by
 * the same discovery the server runs, with the same limits.
 */
import path from 'node:path';
import { type AppConfig, loadConfig } from '../../server/config';
import { discoverSkills } from '../../server/skills/discovery';
import { defaultCacheDir, openScanCache, type PersistedScanCache } from '../../server/skills/scan-cache-file';
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

export interface Discovered {
  config: AppConfig;
  result: DiscoveryResult;
  /** Counts that depend only on the skills (the catalog's tokens), kept with the scan cache between runs. */
  tokens: PersistedScanCache['tokens'];
}

/**
 * Scans with the scan cache kept on disk (server/skills/scan-cache-file.ts): a run after the first parses only the
 * skill files that changed. `SKILLCHAT_SCAN_CACHE=off` scans without it.
 */
export async function discover(rootDirs: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Discovered> {
  const config = loadAppConfig(env);
  const roots = rootsFromOptions(rootDirs, config);
  if (env.SKILLCHAT_SCAN_CACHE === 'off') {
    const result = await discoverSkills(roots, { limits: config.limits });
    return { config, result, tokens: (_input, count) => count() };
  }
  const persisted = openScanCache(defaultCacheDir(env), roots, config.limits);
  const result = await discoverSkills(roots, { limits: config.limits, cache: persisted.cache });
  persisted.save();
  const tokens: Discovered['tokens'] = async (input, count) => {
    const n = await persisted.tokens(input, count);
    persisted.save();
    return n;
  };
  return { config, result, tokens };
}
