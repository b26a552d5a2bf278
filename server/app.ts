/**
 * The composition root: one configuration, one skill registry, one database and one model per process, created
 * lazily (never at import time, so `next build` touches nothing) and kept on globalThis so Next dev reloads and all
 * route modules share them.
 */

import { createDbChatStore } from './chat/db-store';
import type { ChatStore } from './chat/store';
import { type AppConfig, loadConfig } from './config';
import { getDb, listModeOverrides } from './db';
import { getLanguageModel } from './model/provider';
import { createPermissionPolicy, type PermissionPolicy } from './permissions/policy';
import { getSkillRegistry, type SkillRegistry } from './skills/registry';

export interface App {
  config: AppConfig;
  registry: SkillRegistry;
  store: ChatStore;
  model: ReturnType<typeof getLanguageModel>;
  policy: PermissionPolicy;
}

const g = globalThis as typeof globalThis & { __skillchatApp?: App };

export function getApp(): App {
  if (!g.__skillchatApp) {
    const config = loadConfig();
    g.__skillchatApp = {
      config,
      registry: getSkillRegistry(config),
      store: createDbChatStore(config.databasePath),
      model: getLanguageModel(process.env),
      policy: createPermissionPolicy(config),
    };
    // Modes set on /admin outlive restarts; the registry applies them over the config's globs.
    for (const [name, mode] of listModeOverrides(getDb(config.databasePath))) {
      g.__skillchatApp.registry.setModeOverride(name, mode);
    }
  }
  return g.__skillchatApp;
}
