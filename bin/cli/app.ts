/**
 * The app's view of skills, for `list` and `match`: the configured roots (or `--root` folders instead) scanned by
 * the same discovery the server runs, with the same limits.
 */
import path from 'node:path';
import { type AppConfig, loadConfig } from '../../server/config';
import { discoverSkills, walkRoots } from '../../server/skills/discovery/discovery';
import { ownFolders } from '../../server/skills/discovery/own-folders';
import type { DiscoveryResult, SkillRoot } from '../../server/skills/types';
import { type KeptAnswer, openKeptAnswer } from './cache/answer-cache';
import { defaultCacheDir, openScanCache, type PersistedScanCache } from './cache/scan-cache-file';

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
  /**
   * Writes the scan cache back (with the counts `tokens` made), so the next run parses only what changed. Not done
   * by `finish`: `list` saves once it has printed its answer.
   */
  save(): void;
}

/** The roots walked (every skill file stat'ed), nothing parsed yet: enough to tell whether a kept answer holds. */
export interface Walked {
  config: AppConfig;
  /**
   * The answer kept for this walk by the command named `slot`, which also depends on `key` (options, config);
   * null when the scan cache is off.
   */
  answer(slot: string, key: string): KeptAnswer | null;
  /**
   * An answer kept under `key` alone, whatever the walk found: for what depends on the skills' contents only (the
   * matcher's index on their names and descriptions). Null when the scan cache is off.
   */
  kept(slot: string, key: string): KeptAnswer | null;
  /** Parses what the scan cache cannot answer and builds the result (call once); `save` keeps it. */
  finish(): Promise<Discovered>;
}

/**
 * Scans with the scan cache kept on disk (bin/cli/cache/scan-cache-file.ts): a run after the first parses only the
 * skill files that changed. `SKILLCHAT_SCAN_CACHE=off` scans without it (and keeps no answers).
 */
export async function walk(rootDirs: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Walked> {
  const config = loadAppConfig(env);
  const roots = rootsFromOptions(rootDirs, config);
  if (env.SKILLCHAT_SCAN_CACHE === 'off') {
    return {
      config,
      answer: () => null,
      kept: () => null,
      finish: async () => {
        const result = await discoverSkills(roots, { limits: config.limits, ownFolders: ownFolders(config) });
        return { config, result, tokens: (_input, count) => count(), save: () => {} };
      },
    };
  }
  const cacheDir = defaultCacheDir(env);
  const walked = await walkRoots(roots, { limits: config.limits, ownFolders: ownFolders(config) });
  return {
    config,
    answer: (slot, key) =>
      openKeptAnswer(cacheDir, JSON.stringify([slot, roots]), JSON.stringify([slot, key, walked.fingerprint()])),
    kept: (slot, key) => openKeptAnswer(cacheDir, JSON.stringify([slot, roots]), JSON.stringify([slot, key])),
    finish: async () => {
      // Read only now: a kept answer needs none of it.
      const persisted = openScanCache(cacheDir, roots, config.limits);
      const result = await walked.finish(persisted.cache);
      return { config, result, tokens: persisted.tokens, save: () => persisted.save() };
    },
  };
}

/** `walk`, then `finish` and `save`. */
export async function discover(rootDirs: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Discovered> {
  const discovered = await (await walk(rootDirs, env)).finish();
  discovered.save();
  return discovered;
}
