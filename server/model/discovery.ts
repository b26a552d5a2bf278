/**
 * Asking model servers which models they have: an OpenAI-compatible endpoint's `GET /models` and a local Ollama's
 * `GET /api/tags` (+ `POST /api/show` for each model's context length). Every request has a short deadline and a
 * failure is an empty answer, never an exception: a server that is down just contributes no models. Only the URLs
 * passed in are contacted (the registry passes configured endpoints and 127.0.0.1:11434, nothing else).
 */
import { z } from 'zod';

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface DiscoveryOptions {
  timeoutMs: number;
  fetch?: FetchLike;
}

/** Ollama answers `/api/show` per model; a server with hundreds of models gets the first ones asked. */
const MAX_OLLAMA_SHOW = 32;

async function getJson(url: string, init: RequestInit, options: DiscoveryOptions): Promise<unknown> {
  const doFetch = options.fetch ?? fetch;
  const response = await doFetch(url, { ...init, signal: AbortSignal.timeout(options.timeoutMs), redirect: 'error' });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.json();
}

const modelsListSchema = z.object({ data: z.array(z.object({ id: z.string().min(1) }).loose()) }).loose();

/** Model ids of an OpenAI-compatible endpoint (`baseURL` ends in `/v1`), or null when it does not answer. */
export async function listCompatibleModels(
  baseURL: string,
  apiKey: string | undefined,
  options: DiscoveryOptions,
): Promise<string[] | null> {
  try {
    const body = await getJson(
      `${baseURL.replace(/\/+$/, '')}/models`,
      { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} },
      options,
    );
    const parsed = modelsListSchema.safeParse(body);
    return parsed.success ? [...new Set(parsed.data.data.map((m) => m.id))].sort() : null;
  } catch {
    return null;
  }
}

const tagsSchema = z.object({ models: z.array(z.object({ name: z.string().min(1) }).loose()) }).loose();
const showSchema = z.object({ model_info: z.record(z.string(), z.unknown()).optional() }).loose();

export interface OllamaModel {
  name: string;
  /** The model's own `<architecture>.context_length` from `/api/show`, when reported. */
  contextWindow?: number;
}

function contextLengthOf(modelInfo: Record<string, unknown> | undefined): number | undefined {
  if (!modelInfo) return undefined;
  const arch = modelInfo['general.architecture'];
  const value =
    (typeof arch === 'string' ? modelInfo[`${arch}.context_length`] : undefined) ??
    Object.entries(modelInfo).find(([key]) => key.endsWith('.context_length'))?.[1];
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** The models of the Ollama at `origin` (`http://127.0.0.1:11434`), or null when none answers there. */
export async function probeOllama(origin: string, options: DiscoveryOptions): Promise<OllamaModel[] | null> {
  let names: string[];
  try {
    const parsed = tagsSchema.safeParse(await getJson(`${origin}/api/tags`, {}, options));
    if (!parsed.success) return null;
    names = [...new Set(parsed.data.models.map((m) => m.name))].sort();
  } catch {
    return null;
  }
  return Promise.all(
    names.map(async (name, i): Promise<OllamaModel> => {
      if (i >= MAX_OLLAMA_SHOW) return { name };
      try {
        const body = await getJson(
          `${origin}/api/show`,
          { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: name }) },
          options,
        );
        const parsed = showSchema.safeParse(body);
        const contextWindow = parsed.success ? contextLengthOf(parsed.data.model_info) : undefined;
        return contextWindow === undefined ? { name } : { name, contextWindow };
      } catch {
        return { name };
      }
    }),
  );
}
