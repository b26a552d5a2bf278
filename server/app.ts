/**
 * The composition root: one configuration (loaded here once), one skill registry, one access resolver, one database
 * connection and one model registry per process, created lazily (never at import time, so `next build` touches nothing) and
 * kept on globalThis so Next dev reloads and all route modules share them. Route handlers, pages and
 * instrumentation reach all of these through `getApp()`; nothing else loads the config or opens the database.
 *
 * Other singletons, each for Next's dev reload or separately bundled modules: the running turns (chat/turn.ts),
 * the connection cache (db/client.ts, so a reload does not open a second handle), and the access policy and login
 * limiter of server/security/ (shared with proxy.ts, which does not go through `getApp()`).
 */

import { type AccessResolver, createAccessResolver } from './access/resolver';
import { createAppAuth } from './auth/app-auth';
import type { Auth } from './auth/auth';
import { createDbChatStore } from './chat/db-store';
import type { ChatStore } from './chat/store';
import { type AppConfig, loadConfig } from './config';
import { type Db, getDb, listModeOverrides } from './db';
import { createModelRegistry, type ModelRegistry } from './model/registry';
import { getAccessPolicy } from './security/runtime';
import { createSkillRegistry, type SkillRegistry } from './skills/registry';

export interface App {
  config: AppConfig;
  registry: SkillRegistry;
  store: ChatStore;
  /** The models chats can pick (configured providers, compatible endpoints, a local Ollama) and the default. */
  models: ModelRegistry;
  /** The one database connection (the store wraps it for chats). */
  db: Db;
  /** Who may use which skill, and how: every caller reads its records. */
  access: AccessResolver;
  /** Accounts and sessions (better-auth) over the same database; built on first use, after Next listens. */
  readonly auth: Auth;
}

const g = globalThis as typeof globalThis & { __skillchatApp?: App };

export function getApp(): App {
  if (!g.__skillchatApp) {
    const config = loadConfig();
    const db = getDb(config.databasePath);
    const access = createAccessResolver(config);
    let auth: Auth | undefined;
    // Modes set on /admin outlive restarts; the resolver applies them over the config's globs.
    for (const [name, mode] of listModeOverrides(db)) access.setModeOverride(name, mode);
    g.__skillchatApp = {
      config,
      registry: createSkillRegistry(config),
      store: createDbChatStore(db),
      models: createModelRegistry({ env: process.env }),
      db,
      access,
      get auth() {
        auth ??= createAppAuth({ db, databasePath: config.databasePath, policy: getAccessPolicy() });
        return auth;
      },
    };
  }
  return g.__skillchatApp;
}
