/**
 * The in-memory skill set the app serves from: one scan on first use, then the same result until `rescan()`.
 * Kept on `globalThis` so Next's dev server, which re-evaluates modules on every edit, does not rescan (and lose
 * the scan cache) on each reload.
 */
import { type AppConfig, loadConfig } from '../config';
import { createScanCache, discoverSkills, type SkillLoader } from './discovery';
import { createMatcher, type Matcher } from './match';
import type { DiscoveryResult, Skill } from './types';

export interface SkillRegistry {
  readonly config: AppConfig;
  /** The latest scan; scans on first call. */
  current(): Promise<DiscoveryResult>;
  /** Scans again, re-parsing only changed skill files. Concurrent calls share one scan. */
  rescan(): Promise<DiscoveryResult>;
  get(name: string): Promise<Skill | undefined>;
  /** Matcher over the current skills, rebuilt only when names or descriptions change. */
  matcher(): Promise<Matcher>;
}

export interface SkillRegistryOptions {
  /** The skill loader; tests inject a counting wrapper. */
  load?: SkillLoader;
}

export function createSkillRegistry(config: AppConfig, options: SkillRegistryOptions = {}): SkillRegistry {
  const cache = createScanCache();
  let result: DiscoveryResult | null = null;
  let byName = new Map<string, Skill>();
  let inFlight: Promise<DiscoveryResult> | null = null;
  let matcherState: { result: DiscoveryResult; signature: string; matcher: Matcher } | null = null;

  function rescan(): Promise<DiscoveryResult> {
    if (inFlight) return inFlight;
    inFlight = discoverSkills(config.roots, { limits: config.limits, cache, load: options.load })
      .then((next) => {
        result = next;
        byName = new Map(next.skills.map((s) => [s.name, s]));
        return next;
      })
      .finally(() => {
        // A failed scan keeps the previous result and lets the next call try again.
        inFlight = null;
      });
    return inFlight;
  }

  async function current(): Promise<DiscoveryResult> {
    return result ?? rescan();
  }

  return {
    config,
    current,
    rescan,
    async get(name) {
      await current();
      return byName.get(name);
    },
    async matcher() {
      const scanned = await current();
      if (matcherState?.result === scanned) return matcherState.matcher;
      // Only name and description feed the index, so a rescan that changed nothing else keeps the matcher.
      const signature = JSON.stringify(scanned.skills.map((s) => [s.name, s.description]));
      const matcher = matcherState?.signature === signature ? matcherState.matcher : createMatcher(scanned.skills);
      matcherState = { result: scanned, signature, matcher };
      return matcher;
    },
  };
}

const GLOBAL_KEY = Symbol.for('skillchat.skillRegistry');

interface RegistryHolder {
  [GLOBAL_KEY]?: { key: string; registry: SkillRegistry };
}

/** What decides the scan: two configs with the same roots and limits share one registry. */
function configKey(config: AppConfig): string {
  return JSON.stringify({ roots: config.roots, limits: config.limits });
}

/**
 * The process-wide registry. Without a config it is built from `loadConfig()` once; with a config whose roots or
 * limits differ from the current registry's, a new registry replaces it (the CLI and tests pass their own).
 */
export function getSkillRegistry(config?: AppConfig): SkillRegistry {
  const holder = globalThis as RegistryHolder;
  const existing = holder[GLOBAL_KEY];
  if (existing && !config) return existing.registry;
  const effective = config ?? loadConfig();
  const key = configKey(effective);
  if (existing?.key === key) return existing.registry;
  const registry = createSkillRegistry(effective);
  holder[GLOBAL_KEY] = { key, registry };
  return registry;
}
