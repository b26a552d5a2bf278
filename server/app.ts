/**
 * The composition root: one configuration (loaded here once), one skill registry, one access resolver, one database
 * connection and one model registry per process, created lazily (never at import time, so `next build` touches nothing) and
 * kept on globalThis so Next dev reloads and all route modules share them. Route handlers, pages and
 * instrumentation reach all of these through `getApp()`. The one other reader of the config is the exposure policy
 * (server/security/runtime.ts): `proxy.ts` needs it before any route and does not go through `getApp()`.
 *
 * The other process-wide records, and why each is one per process, are listed in docs/ARCHITECTURE.md
 * ("Singletons").
 */

import { type AccessResolver, createAccessResolver } from './access/resolver';
import { createAppAuth } from './auth/app-auth';
import type { Auth } from './auth/auth';
import { createDbChatStores } from './chat/db-store';
import type { ChatStores } from './chat/store';
import { type AppConfig, loadConfig } from './config';
import { type Database, getDb, listModeOverrides, openDatabase, sqliteDatabase } from './db';
import { isPostgresUrl } from './db/pg';
import { createMcpManager, type McpManager } from './mcp/manager';
import { createServedSkills } from './mcp/skills';
import { createModelRegistry, type ModelRegistry } from './model/registry';
import { getExposurePolicy } from './security/runtime';
import { servedSkillsDir } from './skills/discovery/own-folders';
import { createSkillRegistry, type SkillRegistry } from './skills/registry';

export interface App {
  config: AppConfig;
  registry: SkillRegistry;
  /** Chats, per person: `store.forUser(userId)` (`storeFor(request)` in app/_lib/current-user.ts). */
  store: ChatStores;
  /** The models chats can pick (configured providers, compatible endpoints, a local Ollama) and the default. */
  models: ModelRegistry;
  /** The one database handle (SQLite file, or PostgreSQL with `DATABASE_URL`); the store wraps it for chats. */
  db: Database;
  /** Who may use which skill, and how: every caller reads its records. */
  access: AccessResolver;
  /** Connections to the operator's MCP servers, made in the background from the start (server/mcp/manager.ts). */
  mcp: McpManager;
  /** Accounts and sessions (better-auth) over the same database; built on first use, after Next listens. */
  readonly auth: Auth;
}

const g = globalThis as typeof globalThis & { __skillchatApp?: Promise<App> };

/**
 * The app, built on the first call. Async because opening PostgreSQL (pool + migrations under an advisory lock)
 * is; the promise is cached, so every later call resolves at once. A failed open is not cached (the next call
 * retries). SQLite keeps its one connection per process through `getDb` (its own globalThis cache).
 */
export function getApp(): Promise<App> {
  if (!g.__skillchatApp) {
    const app = buildApp();
    g.__skillchatApp = app;
    app.catch(() => {
      if (g.__skillchatApp === app) g.__skillchatApp = undefined;
    });
  }
  return g.__skillchatApp;
}

async function buildApp(): Promise<App> {
  const config = loadConfig();
  const db = isPostgresUrl(config.databaseUrl)
    ? await openDatabase(config)
    : sqliteDatabase(getDb(config.databasePath));
  const access = createAccessResolver(config);
  // Modes set on /admin outlive restarts; the resolver applies them over the config's globs.
  for (const [name, mode] of await listModeOverrides(db)) access.setModeOverride(name, mode);
  let auth: Auth | undefined;
  // Started now and never awaited: a server that is slow or down only leaves its tools out until it answers.
  const mcp = createMcpManager(config.mcp, { env: process.env, appDir: config.appDir });
  mcp.start();
  const registry = createSkillRegistry(config);
  // Skills served by the MCP servers that declare the skills extension, next to the folders' (server/mcp/skills.ts).
  registry.addSource(
    createServedSkills(mcp, { dir: servedSkillsDir(config), limits: config.limits, timeoutMs: config.mcp.timeoutMs }),
  );
  const models = createModelRegistry({ env: process.env });
  // The operator's access records for a skill set are resolved when its scan lands, not by the first turn or slash
  // menu after it. (Only what lives on this shared app object can be prepared here: instrumentation runs in its own
  // bundle, so warming a module's caches from it would warm a copy no route reads.)
  registry.subscribe(({ skills }) => access.resolveAll(skills));
  return {
    config,
    registry,
    store: createDbChatStores(db),
    models,
    db,
    access,
    mcp,
    // Built on first use: its allowed origins come from the address Next listens on, known only after listen.
    get auth() {
      auth ??= createAppAuth({ db, databasePath: config.databasePath, policy: getExposurePolicy() });
      return auth;
    },
  };
}
