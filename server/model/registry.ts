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
 * Discovery only contacts the configured endpoints and 127.0.0.1:11434 (or `SKILLCHAT_OLLAMA_URL`), each with a short deadline; results are
 * cached for a minute, and `known()` never waits for them, so no page blocks on a server that is down.
 * Context windows: the table in `context-windows.ts`, or what Ollama reports per model; unknown ones get none and
 * the catalog budget falls back to its fixed size.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { knownContextWindow } from './context-windows';
import { type FetchLike, listCompatibleModels, probeOllama } from './discovery';
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
}

interface Registered {
  entry: ModelEntry;
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
    { entry: entry(OFFLINE_MODEL_ID, OFFLINE_LABEL, 'offline', undefined), build: () => offlineModel(env) },
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

  let discovered: Registered[] = [];
  let discoveredAt = Number.NEGATIVE_INFINITY;
  let refreshing: Promise<void> | null = null;

  /** Whether a configured endpoint did not answer last time: `list()` asks again, `known()` after `RETRY_MS`. */
  let failed = false;

  async function discover(): Promise<{ found: Registered[]; failed: boolean }> {
    let anyFailed = false;
    const fromEndpoints = endpoints.map(async (e): Promise<Registered[]> => {
      const answer = await listCompatibleModels(e.baseURL, e.apiKey, discovery);
      if (!answer) anyFailed = true;
      const listed = answer ?? [];
      const where = displayBaseUrl(e.baseURL);
      return [...new Set([...e.pinned, ...listed])].map((id) => ({
        entry: entry(`${e.provider}:${id}`, `${id} via ${where}`, 'compatible', e.contextWindow(id)),
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
        build: () => compatibleModel(name, `${ollamaOrigin}/v1`, 'ollama', 'ollama'),
      }));
    })();
    const found = (await Promise.all([...fromEndpoints, fromOllama])).flat();
    return { found, failed: anyFailed };
  }

  function refresh(): Promise<void> {
    refreshing ??= discover()
      .then((result) => {
        discovered = result.found;
        failed = result.failed;
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
  };
}
