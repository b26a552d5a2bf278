/**
 * The app: the one object that owns what this process opens and starts, built from the one configuration
 * (`appConfig()`, loaded once): the database, the skill registry and its watcher, the access resolver, the chat
 * stores, the models, the connections to MCP servers, the running turns and their leases, the exposure policy,
 * accounts and the skill server. `createApp` opens it, `start()` starts its background work, `close()` ends everything it started.
 *
 * The process's app is built lazily by `getApp()` (never at import time, so `next build` touches nothing) and kept
 * process-wide (process-wide.ts), so Next dev reloads and every route bundle share it. Route handlers, pages and
 * instrumentation reach all of these through `getApp()`; `proxy.ts` reads only the exposure policy, which needs no
 * database (server/security/exposure-policy.ts).
 */

import path from 'node:path';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { type AccessResolver, createAccessResolver } from './access/resolver';
import { createAppAuth } from './auth/app-auth';
import type { Auth } from './auth/auth';
import { loadAuthSecret } from './auth/secret';
import { createDbChatStores } from './chat/db-store';
import { createRunningTurns, type RunningTurns } from './chat/running/active-turns';
import { type TurnLeases, turnLeasesFor } from './chat/running/leases';
import type { ChatStores } from './chat/store';
import { type AppConfig, appConfig } from './config';
import { closeDatabase, type Database, listModeOverrides, openDatabase } from './db';
import { createRunningEvals, type RunningEvals, stopAllOutputEvals } from './evals/running';
import { createMcpManager, type McpManager } from './mcp/manager';
import { createMcpConnectionStore } from './mcp/oauth-store';
import { createPersonalMcp, type PersonalMcp } from './mcp/people';
import { createServedSkills } from './mcp/skills';
import { type ConnectionStore, createConnectionStore } from './model/connections';
import { createModelRegistry, type ModelRegistry } from './model/registry';
import { processWide } from './process-wide';
import { closeOfficeHosts } from './sandbox/office-host';
import { cancelWaitingRuns } from './sandbox/select';
import { loadSecretsKey, type SecretsKey } from './secrets/crypto';
import { createSecretStore, type SecretStore } from './secrets/store';
import type { ExposurePolicy } from './security/exposure';
import { getExposurePolicy } from './security/exposure-policy';
import { createPublisher } from './skill-server/publication';
import type { SkillServerDeps } from './skill-server/served';
import { servedSkillsDir } from './skills/discovery/own-folders';
import { createSkillRegistry, type SkillRegistry } from './skills/registry';

/** The skill server's publisher (its digests, kept per skill folder) and its MCP handler. */
export interface SkillServer {
  deps: SkillServerDeps;
  mcp: McpHttpHandler;
}

export interface App {
  config: AppConfig;
  registry: SkillRegistry;
  /** Chats, per person: `store.forUser(userId)` (`storeFor(request)` in app/_lib/current-user.ts). */
  store: ChatStores;
  /** The models chats can pick (configured providers, compatible endpoints, a local Ollama, /admin's) and the default. */
  models: ModelRegistry;
  /** The model servers added on /admin, their keys sealed like secrets; the registry reads them. */
  modelConnections: ConnectionStore;
  /** The one database handle (SQLite file, or PostgreSQL with `DATABASE_URL`); the store wraps it for chats. */
  db: Database;
  /** Who may use which skill, and how: every caller reads its records. */
  access: AccessResolver;
  /** Connections to the operator's MCP servers, made in the background once started (server/mcp/manager.ts). */
  mcp: McpManager;
  /** The MCP servers each person signs in to (OAuth): their connections, per person (server/mcp/people.ts). */
  mcpPeople: PersonalMcp;
  /** The turns running in this process, one per chat, and their recorded answers: the chat, Stop, DELETE, stream routes. */
  turns: RunningTurns;
  /** The output evals running in this process, one per author (server/evals/output-admin.ts); closing stops them. */
  evals: RunningEvals;
  /** The running-turn leases on this database: the sweep for crashed instances, Stop from another instance. */
  leases: TurnLeases;
  /** Who may connect, built on first use (after Next listens): shared with `proxy.ts`. */
  readonly exposure: ExposurePolicy;
  /** Accounts and sessions (better-auth) over the same database; built on first use, after Next listens. */
  readonly auth: Auth;
  /** Secret values set on /admin and /settings, sealed under a key from the auth secret (server/secrets/). */
  secrets: SecretStore;
  /** The skill server (`/mcp`, the well-known index), built on first use. */
  skillServer(): Promise<SkillServer>;
  /** Starts the background work: MCP connections, the lease sweep (and on PostgreSQL its LISTEN). Idempotent. */
  start(): Promise<void>;
  /**
   * Ends everything started: the running turns (cut short and stored as `interrupted`; shutdown drains them first),
   * the runs waiting for a sandbox slot, the skill watcher, the MCP connections (stdio servers stopped), the leases' timer and
   * LISTEN connection, then the database unless `keepDatabase` (shutdown: requests still in flight finish on it).
   */
  close(options?: { keepDatabase?: boolean }): Promise<void>;
}

export interface CreateAppOptions {
  /** Where the models and MCP servers read their keys and `${env:NAME}` references. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Who may connect. Default: the process's policy (`getExposurePolicy`). */
  exposure?: () => ExposurePolicy;
}

/** Opens the database (migrated) and builds the app on it; nothing runs in the background until `start()`. */
export async function createApp(config: AppConfig, options: CreateAppOptions = {}): Promise<App> {
  const env = options.env ?? process.env;
  const exposure = options.exposure ?? getExposurePolicy;
  const db = await openDatabase(config);
  try {
    const access = createAccessResolver(config);
    // Modes set on /admin outlive restarts; the resolver applies them over the config's globs.
    for (const [name, mode] of await listModeOverrides(db)) access.setModeOverride(name, mode);
    return assemble(config, db, access, env, exposure);
  } catch (error) {
    // A failed app is not kept (the next `getApp()` tries again): its connection must not stay open behind it.
    await closeDatabase(db).catch(() => {});
    throw error;
  }
}

function assemble(
  config: AppConfig,
  db: Database,
  access: AccessResolver,
  env: Readonly<Record<string, string | undefined>>,
  exposure: () => ExposurePolicy,
): App {
  const mcp = createMcpManager(config.mcp, { env, appDir: config.appDir });
  const registry = createSkillRegistry(config);
  // Skills served by the MCP servers that declare the skills extension, next to the folders' (server/mcp/skills.ts).
  const served = createServedSkills(mcp, {
    dir: servedSkillsDir(config),
    limits: config.limits,
    timeoutMs: config.mcp.timeoutMs,
  });
  registry.addSource(served);
  // The key is derived on first use: the auth secret may be a file created then.
  let secretsKey: SecretsKey | undefined;
  const key = () => {
    secretsKey ??= loadSecretsKey(() => loadAuthSecret(path.dirname(config.databasePath), env), env);
    return secretsKey;
  };
  const modelConnections = createConnectionStore(db, key);
  const models = createModelRegistry({ env, connections: () => modelConnections.resolved() });
  // The operator's access records for a skill set are resolved when its scan lands, not by the first turn or slash
  // menu after it.
  registry.subscribe(({ skills }) => access.resolveAll(skills));
  const leases = turnLeasesFor(db);
  const turns = createRunningTurns();
  let auth: Auth | undefined;
  let skillServer: Promise<SkillServer> | undefined;
  let closing: Promise<void> | undefined;
  const evals = createRunningEvals();
  const mcpPeople = createPersonalMcp({
    config: config.mcp,
    manager: mcp,
    store: createMcpConnectionStore(db, key),
    env,
  });
  return {
    config,
    registry,
    store: createDbChatStores(db),
    secrets: createSecretStore(db, key),
    models,
    modelConnections,
    db,
    access,
    mcp,
    mcpPeople,
    turns,
    evals,
    leases,
    get exposure() {
      return exposure();
    },
    // Built on first use: its allowed origins come from the address Next listens on, known only after listen.
    get auth() {
      auth ??= createAppAuth({ db, databasePath: config.databasePath, policy: exposure() });
      return auth;
    },
    skillServer() {
      skillServer ??= (async () => {
        // Loaded here, not at the top: only the skill server's routes need the MCP server SDK.
        const { createSkillServerHandler } = await import('./skill-server/mcp');
        const deps: SkillServerDeps = { registry, access, db, publisher: createPublisher() };
        return { deps, mcp: createSkillServerHandler(deps) };
      })();
      return skillServer;
    },
    async start() {
      if (closing) return;
      // Never awaited: a server that is slow or down only leaves its tools out until it answers.
      mcp.start();
      await leases.start();
    },
    close(closeOptions = {}) {
      closing ??= (async () => {
        // An eval's next run is not started; new turns are refused; a running one is stored before the database it
        // writes to closes.
        stopAllOutputEvals(evals);
        await turns.drain(0);
        // Runs still waiting for a sandbox slot (a document read, a preview) are refused rather than left behind.
        cancelWaitingRuns('the server is shutting down');
        await registry.stopWatching();
        served.close();
        await Promise.all([mcp.close(), mcpPeople.close(), leases.close(), closeOfficeHosts()]);
        if (!closeOptions.keepDatabase) await closeDatabase(db);
      })();
      return closing;
    },
  };
}

interface AppRecord {
  app?: Promise<App>;
}

const record = processWide<AppRecord>('app', () => ({}));

/**
 * The process's app, opened and started on the first call. Async because opening PostgreSQL (pool + migrations
 * under an advisory lock) is; the promise is kept, so every later call resolves at once. A failed open is not kept
 * (the next call retries).
 */
export function getApp(): Promise<App> {
  if (!record.app) {
    const app = createApp(appConfig()).then(async (opened) => {
      await opened.start();
      return opened;
    });
    record.app = app;
    app.catch(() => {
      if (record.app === app) record.app = undefined;
    });
  }
  return record.app;
}

/** Closes the process's app, if one was opened, and forgets it: the next `getApp()` opens a new one. */
export async function closeApp(options?: { keepDatabase?: boolean }): Promise<void> {
  const app = record.app;
  if (!app) return;
  record.app = undefined;
  await (await app.catch(() => null))?.close(options);
}
