/**
 * Which model answers: an OpenAI-compatible endpoint when a key is configured, the built-in offline model
 * otherwise, so a fresh checkout works with no account. Read once per process from the environment.
 */
// Must run before @ai-sdk/openai is evaluated (see env-guard.ts).
import './env-guard';
import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { createOfflineModel } from './offline-model';

export type ModelKind = 'offline' | 'openai';

export interface LanguageModelSelection {
  model: LanguageModelV4;
  /** For people (status bar, message metadata). Never contains the key or URL credentials. */
  label: string;
  kind: ModelKind;
  /** Tokens the model accepts, when known (catalog budgeting); `OPENAI_CONTEXT_WINDOW` overrides. */
  contextWindow?: number;
}

export type ModelEnv = Readonly<Record<string, string | undefined>>;

export const DEFAULT_OPENAI_MODEL = 'gpt-4.1-mini';
export const OFFLINE_LABEL = 'Offline model (built-in)';
/** Enough to see the answer stream in the UI without making anyone wait. */
export const DEFAULT_OFFLINE_CHUNK_DELAY_MS = 15;

/** Published context windows of common OpenAI models, first matching prefix wins. Unknown models (local ones) get none. */
const CONTEXT_WINDOWS: [prefix: string, tokens: number][] = [
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-5', 400_000],
  ['o4-mini', 200_000],
  ['o3', 200_000],
];

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function positiveInt(value: string | undefined): number | undefined {
  const n = Number(nonEmpty(value));
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** `https://user:secret@host/v1?token=x` -> `https://host/v1`: labels end up in the UI and in stored messages. */
export function displayBaseUrl(baseURL: string): string {
  try {
    const url = new URL(baseURL);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(invalid OPENAI_BASE_URL)';
  }
}

function contextWindowFor(modelId: string, env: ModelEnv): number | undefined {
  const override = positiveInt(env.OPENAI_CONTEXT_WINDOW);
  if (override !== undefined) return override;
  return CONTEXT_WINDOWS.find(([prefix]) => modelId.startsWith(prefix))?.[1];
}

export function getLanguageModel(env: ModelEnv = process.env): LanguageModelSelection {
  const apiKey = nonEmpty(env.OPENAI_API_KEY);
  const baseURL = nonEmpty(env.OPENAI_BASE_URL);
  // A base URL alone selects that endpoint: Ollama, LM Studio and llama.cpp servers need no key.
  if (!apiKey && !baseURL) {
    const chunkDelayMs = Number(nonEmpty(env.SKILLCHAT_OFFLINE_CHUNK_DELAY_MS) ?? DEFAULT_OFFLINE_CHUNK_DELAY_MS);
    return {
      model: createOfflineModel({
        chunkDelayMs: Number.isFinite(chunkDelayMs) && chunkDelayMs >= 0 ? chunkDelayMs : 0,
      }),
      label: OFFLINE_LABEL,
      kind: 'offline',
    };
  }
  const modelId = nonEmpty(env.OPENAI_MODEL) ?? DEFAULT_OPENAI_MODEL;
  const provider = createOpenAI({ apiKey: apiKey ?? 'not-needed', baseURL });
  const contextWindow = contextWindowFor(modelId, env);
  // Ollama, vLLM, LM Studio, llama.cpp and most gateways speak Chat Completions, not the Responses API.
  const model = baseURL ? provider.chat(modelId) : provider(modelId);
  const label = baseURL ? `${modelId} via ${displayBaseUrl(baseURL)}` : `OpenAI ${modelId}`;
  return { model, label, kind: 'openai', ...(contextWindow === undefined ? {} : { contextWindow }) };
}
