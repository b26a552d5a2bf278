/**
 * The models a chat can pick, one id each (`provider:model`), owned by the composition root (`server/app.ts`):
 *
 * - `offline:builtin`, always;
 * - OpenAI (`OPENAI_API_KEY` without `OPENAI_BASE_URL`): `OPENAI_MODEL` and `OPENAI_MODELS` (comma-separated);
 * - Anthropic (`ANTHROPIC_API_KEY`, optional `ANTHROPIC_BASE_URL`): `ANTHROPIC_MODELS`, or two current defaults;
 * - OpenAI-compatible endpoints (`SKILLCHAT_OPENAI_COMPATIBLE_URL`, comma-separated, key in
 *   `SKILLCHAT_OPENAI_COMPATIBLE_API_KEY`; and `OPENAI_BASE_URL` as before): the models their `/models` lists;
 * - Ollama on 127.0.0.1:11434, found without configuration (`SKILLCHAT_OLLAMA=off` turns the probe off,
 *   `SKILLCHAT_OLLAMA_URL` looks elsewhere: an Ollama on another machine, or a test's), over its
 *   OpenAI-compatible `/v1` with `@ai-sdk/openai` `.chat()` (the same, tested wire as any compatible server; no
 *   separate AI SDK 7 provider needed).
 *
 * - Connections added on /admin (`connections.ts`), read from the database at every discovery and at once after a
 *   change (`refresh()`), so new chats can pick their models without a restart: id `<connection id>:<model>`. The
 *   environment wins: a stored OpenAI or Anthropic connection is not used while `OPENAI_API_KEY` (without a base URL)
 *   or `ANTHROPIC_API_KEY` is set, nor a stored endpoint or Ollama the environment already names (`overriddenBy`).
 *   A connection with a list of models offers those without asking its server; one offering "every model it lists"
 *   is asked at each discovery, like the environment's compatible endpoints.
 *
 * Discovery only contacts the configured endpoints and 127.0.0.1:11434 (or `SKILLCHAT_OLLAMA_URL`), each with a short deadline; results are
 * cached for a minute, and `known()` never waits for them, so no page blocks on a server that is down.
 * Context windows: the table in `context-windows.ts`, or what Ollama reports per model; unknown ones get none and
 * the catalog budget falls back to its fixed size.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { Resolver } from '../egress/address';
import type { ModelConnection } from './connections';
import { knownContextWindow } from './context-windows';
import { type FetchLike, listCompatibleModels, probeOllama } from './discovery';
import { guardedFetch, listEndpointModels, ollamaOrigin as originOfOllama } from './endpoint';
import {
  anthropicModel,
  compatibleModel,
  contextWindowFor,
  DEFAULT_OPENAI_MODEL,
  displayBaseUrl,
  type ModelEnv,
  nonEmpty,
  OFFLINE_LABEL,
  offlineModel,
  openAIModel,
} from './provider';

export type ModelProvider = 'offline' | 'openai' | 'anthropic' | 'compatible' | 'ollama';

/** What `GET /api/models` lists and the picker shows. Never carries a key or URL credentials. */
export interface ModelEntry {
  id: string;
  label: string;
  provider: ModelProvider;
  contextWindow?: number;
}

/** Where a model comes from, as /admin says it. */
export type ModelSource = 'built-in' | 'environment' | 'found' | 'admin';

/** A model as /admin lists it: the entry, where it came from, and the connection that offers it. */
export interface ModelOrigin extends ModelEntry {
  source: ModelSource;
  connectionId?: string;
}

/** What the chat header's picker starts from. */
export interface ModelMenu {
  models: ModelEntry[];
  defaultId: string;
}

export interface ModelChoice extends ModelEntry {
  model: LanguageModelV4;
}

export interface ModelRegistry {
  /** The model of a chat that has not picked one. */
  readonly defaultId: string;
  /** Every model available, after discovery (bounded by its deadlines, cached). */
  list(): Promise<ModelEntry[]>;
  /** What is known now, without waiting: configured models and the last discovery (a stale one is refreshed). */
  known(): ModelEntry[];
  /** The default model's entry as known now (the offline model's while discovery has not found it). */
  defaultEntry(): ModelEntry;
  /** The available model with this id, if any. */
  find(id: string): Promise<ModelEntry | undefined>;
  /**
   * The model a chat's turn uses: its pick when available, the default when it has none; otherwise (gone, server
   * down) the offline model with a note that says so.
   */
  choose(id: string | null | undefined): Promise<{ choice: ModelChoice; note?: string }>;
  /** Reads the stored connections and asks the servers again now: after /admin adds, edits or removes one. */
  refresh(): Promise<void>;
  /**
   * Every model with where it came from, and the stored connections the environment overrides (with the sentence
   * /admin shows), after discovery.
   */
  origins(): Promise<{ models: ModelOrigin[]; overridden: { connectionId: string; reason: string }[] }>;
}

export const OFFLINE_MODEL_ID = 'offline:builtin';
export const OLLAMA_ORIGIN = 'http://127.0.0.1:11434';
export const DEFAULT_ANTHROPIC_MODELS = ['claude-sonnet-4-5', 'claude-haiku-4-5'];
const DEFAULT_TTL_MS = 60_000;
const DEFAULT_TIMEOUT_MS = 1_500;
const RETRY_MS = 5_000;

export interface ModelRegistryOptions {
  env?: ModelEnv;
  fetch?: FetchLike;
  /** Where Ollama is looked for (null: not at all). Tests point it at their own server. */
  ollamaOrigin?: string | null;
  timeoutMs?: number;
  ttlMs?: number;
  now?: () => number;
  /** The connections added on /admin, keys opened (`ConnectionStore.resolved`). */
  connections?: () => Promise<ModelConnection[]>;
  /** How the turns of a stored connection resolve its host before each request (tests: no DNS). */
  resolve?: Resolver;
}

interface Registered {
  entry: ModelEntry;
  source: ModelSource;
  connectionId?: string;
  build: () => LanguageModelV4;
}

interface Endpoint {
  provider: string;
  baseURL: string;
  apiKey?: string;
  /** Listed even when `/models` does not answer (`OPENAI_MODEL` for `OPENAI_BASE_URL`). */
  pinned: string[];
  contextWindow: (modelId: string) => number | undefined;
}

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

function entry(id: string, label: string, provider: ModelProvider, contextWindow: number | undefined): ModelEntry {
  return { id, label, provider, ...(contextWindow === undefined ? {} : { contextWindow }) };
}

function configuredModels(env: ModelEnv): { models: Registered[]; endpoints: Endpoint[]; legacyId?: string } {
  const models: Registered[] = [
    {
      entry: entry(OFFLINE_MODEL_ID, OFFLINE_LABEL, 'offline', undefined),
      source: 'built-in',
      build: () => offlineModel(env),
    },
  ];
  const openAIKey = nonEmpty(env.OPENAI_API_KEY);
  const openAIBase = nonEmpty(env.OPENAI_BASE_URL);
  const openAIModel_ = nonEmpty(env.OPENAI_MODEL) ?? DEFAULT_OPENAI_MODEL;
  let legacyId: string | undefined;
  if (openAIKey && !openAIBase) {
    for (const id of new Set([openAIModel_, ...list(env.OPENAI_MODELS)])) {
      const window = id === openAIModel_ ? contextWindowFor(id, env) : knownContextWindow(id);
      models.push({
        entry: entry(`openai:${id}`, `OpenAI ${id}`, 'openai', window),
        source: 'environment',
        build: () => openAIModel(id, openAIKey),
      });
    }
    legacyId = `openai:${openAIModel_}`;
  }
  const anthropicKey = nonEmpty(env.ANTHROPIC_API_KEY);
  if (anthropicKey) {
    const ids = list(env.ANTHROPIC_MODELS);
    const baseURL = nonEmpty(env.ANTHROPIC_BASE_URL);
    for (const id of ids.length > 0 ? ids : DEFAULT_ANTHROPIC_MODELS) {
      models.push({
        entry: entry(`anthropic:${id}`, `Anthropic ${id}`, 'anthropic', knownContextWindow(id)),
        source: 'environment',
        build: () => anthropicModel(id, anthropicKey, baseURL),
      });
    }
  }
  const endpoints: Endpoint[] = list(env.SKILLCHAT_OPENAI_COMPATIBLE_URL).map((baseURL) => ({
    provider: '',
    baseURL,
    apiKey: nonEmpty(env.SKILLCHAT_OPENAI_COMPATIBLE_API_KEY),
    pinned: [],
    contextWindow: knownContextWindow,
  }));
  if (openAIBase) {
    endpoints.push({
      provider: '',
      baseURL: openAIBase,
      apiKey: openAIKey,
      pinned: [openAIModel_],
      contextWindow: (id) => (id === openAIModel_ ? contextWindowFor(id, env) : knownContextWindow(id)),
    });
  }
  // `compatible`, then `compatible-2`, ...: the id says which endpoint without exposing its URL.
  endpoints.forEach((e, i) => {
    e.provider = i === 0 ? 'compatible' : `compatible-${i + 1}`;
  });
  if (openAIBase) legacyId = `${endpoints.at(-1)!.provider}:${openAIModel_}`;
  return { models, endpoints, ...(legacyId ? { legacyId } : {}) };
}

export function createModelRegistry(options: ModelRegistryOptions = {}): ModelRegistry {
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  const discovery = { timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, fetch: options.fetch };
  const ollamaOrigin =
    nonEmpty(env.SKILLCHAT_OLLAMA)?.toLowerCase() === 'off'
      ? null
      : options.ollamaOrigin === undefined
        ? (nonEmpty(env.SKILLCHAT_OLLAMA_URL)?.replace(/\/+$/, '') ?? OLLAMA_ORIGIN)
        : options.ollamaOrigin;
  const { models: configured, endpoints, legacyId } = configuredModels(env);
  // Ollama at an address someone set is configuration; on the default port it is found without any.
  const ollamaSource: ModelSource =
    options.ollamaOrigin === undefined && !nonEmpty(env.SKILLCHAT_OLLAMA_URL) ? 'found' : 'environment';
  const stored = options.connections ?? (async () => []);
  const connectionFetch = guardedFetch(options.resolve);

  let discovered: Registered[] = [];
  let overridden: { connectionId: string; reason: string }[] = [];
  let discoveredAt = Number.NEGATIVE_INFINITY;
  let refreshing: Promise<void> | null = null;

  /** Whether a configured endpoint did not answer last time: `list()` asks again, `known()` after `RETRY_MS`. */
  let failed = false;

  /** The models of one connection added on /admin: its list, or what its server lists now. */
  async function fromConnection(c: ModelConnection): Promise<{ models: Registered[]; failed: boolean }> {
    let ids = c.models;
    let failed = false;
    if (ids === null) {
      const answer = await listEndpointModels(c, {
        timeoutMs: discovery.timeoutMs,
        fetch: discovery.fetch,
        resolve: options.resolve,
      });
      failed = !answer.ok;
      ids = answer.ok ? answer.models : [];
    }
    const models = ids.map((id): Registered => {
      const common = { source: 'admin' as const, connectionId: c.id };
      const window = knownContextWindow(id);
      switch (c.kind) {
        case 'openai':
          return {
            ...common,
            entry: entry(`${c.id}:${id}`, `OpenAI ${id}`, 'openai', window),
            build: () => openAIModel(id, c.apiKey ?? '', { baseURL: c.baseUrl, fetch: connectionFetch }),
          };
        case 'anthropic':
          return {
            ...common,
            entry: entry(`${c.id}:${id}`, `Anthropic ${id}`, 'anthropic', window),
            build: () => anthropicModel(id, c.apiKey ?? '', c.baseUrl, connectionFetch),
          };
        case 'ollama':
          return {
            ...common,
            entry: entry(`${c.id}:${id}`, `${id} (${c.name})`, 'ollama', window),
            build: () => compatibleModel(id, `${originOfOllama(c.baseUrl)}/v1`, 'ollama', 'ollama', connectionFetch),
          };
        default:
          return {
            ...common,
            entry: entry(`${c.id}:${id}`, `${id} via ${c.name}`, 'compatible', window),
            build: () => compatibleModel(id, c.baseUrl, c.apiKey, undefined, connectionFetch),
          };
      }
    });
    return { models, failed };
  }

  async function discover(): Promise<{
    found: Registered[];
    failed: boolean;
    overridden: { connectionId: string; reason: string }[];
  }> {
    let anyFailed = false;
    const connections = await stored().catch((error: unknown) => {
      console.warn('[models] the connections added on /admin could not be read:', (error as Error).message);
      anyFailed = true;
      return [];
    });
    const skipped: { connectionId: string; reason: string }[] = [];
    const used = connections.filter((c) => {
      const reason = overriddenBy(c, env, ollamaOrigin);
      if (reason) skipped.push({ connectionId: c.id, reason });
      return !reason;
    });
    const fromConnections = used.map(async (c) => {
      const { models, failed } = await fromConnection(c);
      if (failed) anyFailed = true;
      return models;
    });
    const fromEndpoints = endpoints.map(async (e): Promise<Registered[]> => {
      const answer = await listCompatibleModels(e.baseURL, e.apiKey, discovery);
      if (!answer) anyFailed = true;
      const listed = answer ?? [];
      const where = displayBaseUrl(e.baseURL);
      return [...new Set([...e.pinned, ...listed])].map((id) => ({
        entry: entry(`${e.provider}:${id}`, `${id} via ${where}`, 'compatible', e.contextWindow(id)),
        source: 'environment' as const,
        build: () => compatibleModel(id, e.baseURL, e.apiKey),
      }));
    });
    const fromOllama = (async (): Promise<Registered[]> => {
      if (!ollamaOrigin) return [];
      const answer = await probeOllama(ollamaOrigin, discovery);
      // No Ollama here is the usual case, not a failure worth asking again soon.
      const found = answer ?? [];
      return found.map(({ name, contextWindow }) => ({
        entry: entry(`ollama:${name}`, `${name} (Ollama)`, 'ollama', contextWindow),
        source: ollamaSource,
        build: () => compatibleModel(name, `${ollamaOrigin}/v1`, 'ollama', 'ollama'),
      }));
    })();
    const found = (await Promise.all([...fromEndpoints, fromOllama, ...fromConnections])).flat();
    return { found, failed: anyFailed, overridden: skipped };
  }

  function refresh(): Promise<void> {
    refreshing ??= discover()
      .then((result) => {
        discovered = result.found;
        failed = result.failed;
        overridden = result.overridden;
        discoveredAt = now();
      })
      .finally(() => {
        refreshing = null;
      });
    return refreshing;
  }

  const stale = () => now() - discoveredAt >= (failed ? Math.min(RETRY_MS, ttlMs) : ttlMs);
  const all = (): Registered[] => {
    const seen = new Set<string>();
    return [...configured, ...discovered].filter((m) => !seen.has(m.entry.id) && seen.add(m.entry.id));
  };
  const available = async (): Promise<Registered[]> => {
    // A configured endpoint that did not answer is asked again by the next caller that can wait.
    if (stale() || failed) await refresh();
    return all();
  };

  const preferred = nonEmpty(env.SKILLCHAT_MODEL);
  const defaultId = preferred ?? legacyId ?? configured[1]?.entry.id ?? OFFLINE_MODEL_ID;
  const offline = configured[0]!;
  const choice = (m: Registered): ModelChoice => ({ ...m.entry, model: m.build() });

  return {
    defaultId,
    list: async () => (await available()).map((m) => m.entry),
    known: () => {
      if (stale() && !refreshing) void refresh();
      return all().map((m) => m.entry);
    },
    defaultEntry: () => all().find((m) => m.entry.id === defaultId)?.entry ?? offline.entry,
    find: async (id) => (await available()).find((m) => m.entry.id === id)?.entry,
    choose: async (id) => {
      const wanted = id ?? defaultId;
      const found = (await available()).find((m) => m.entry.id === wanted);
      if (found) return { choice: choice(found) };
      return {
        choice: choice(offline),
        note: `${wanted} is not available now (its server did not list it); the offline model answered instead.`,
      };
    },
    async refresh() {
      // One in flight may have read the connections before the change: wait for it, then read again.
      await refreshing?.catch(() => {});
      await refresh();
    },
    async origins() {
      await available();
      return {
        models: all().map((m) => ({
          ...m.entry,
          source: m.source,
          ...(m.connectionId ? { connectionId: m.connectionId } : {}),
        })),
        overridden,
      };
    },
  };
}

/**
 * Why a connection added on /admin is not used while the environment configures the same thing (the environment
 * wins), as /admin says it; null when it is used.
 */
export function overriddenBy(c: ModelConnection, env: ModelEnv, ollamaOrigin: string | null): string | null {
  const same = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
  if (c.kind === 'openai' && nonEmpty(env.OPENAI_API_KEY) && !nonEmpty(env.OPENAI_BASE_URL)) {
    return 'OPENAI_API_KEY is set in the environment: its OpenAI models are offered instead';
  }
  if (c.kind === 'anthropic' && nonEmpty(env.ANTHROPIC_API_KEY)) {
    return 'ANTHROPIC_API_KEY is set in the environment: its Anthropic models are offered instead';
  }
  if (c.kind === 'compatible') {
    const named = [...list(env.SKILLCHAT_OPENAI_COMPATIBLE_URL), nonEmpty(env.OPENAI_BASE_URL)].filter(
      (u): u is string => u !== undefined,
    );
    if (named.some((u) => same(u, c.baseUrl))) {
      return 'the environment names the same endpoint (SKILLCHAT_OPENAI_COMPATIBLE_URL or OPENAI_BASE_URL): its models are offered instead';
    }
  }
  if (c.kind === 'ollama' && ollamaOrigin && same(originOfOllama(c.baseUrl), ollamaOrigin)) {
    return 'this Ollama is already looked for (at 127.0.0.1:11434, or SKILLCHAT_OLLAMA_URL): its models are offered as found there';
  }
  return null;
}
