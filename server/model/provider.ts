/**
 * How each provider's model is built, and which one the environment picks by default (`getLanguageModel`): an
 * OpenAI-compatible endpoint when a key or base URL is configured, the built-in offline model otherwise, so a fresh
 * checkout works with no account. The model registry (`registry.ts`) lists the others and builds them here.
 */
// Must run before @ai-sdk/openai is evaluated (see env-guard.ts).
import './env-guard';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { createOfflineModel } from '../offline-model/model';
import { knownContextWindow } from './context-windows';

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

export function nonEmpty(value: string | undefined): string | undefined {
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

/** `OPENAI_CONTEXT_WINDOW` (for the model the OPENAI_* variables select), else the table of known families. */
export function contextWindowFor(modelId: string, env: ModelEnv): number | undefined {
  return positiveInt(env.OPENAI_CONTEXT_WINDOW) ?? knownContextWindow(modelId);
}

export function offlineModel(env: ModelEnv): LanguageModelV4 {
  const chunkDelayMs = Number(nonEmpty(env.SKILLCHAT_OFFLINE_CHUNK_DELAY_MS) ?? DEFAULT_OFFLINE_CHUNK_DELAY_MS);
  return createOfflineModel({ chunkDelayMs: Number.isFinite(chunkDelayMs) && chunkDelayMs >= 0 ? chunkDelayMs : 0 });
}

/** How a connection added on /admin reaches its server: its base URL, and a fetch that checks each request's address. */
export interface ModelTransport {
  baseURL?: string;
  fetch?: typeof fetch;
}

/** OpenAI itself: the Responses API. */
export function openAIModel(modelId: string, apiKey: string, transport: ModelTransport = {}): LanguageModelV4 {
  return createOpenAI({ apiKey, ...transport })(modelId);
}

/**
 * Any OpenAI-compatible server (`baseURL` ends in `/v1`): Ollama, vLLM, LM Studio, llama.cpp and most gateways speak
 * Chat Completions, not the Responses API. Local servers need no key.
 */
export function compatibleModel(
  modelId: string,
  baseURL: string,
  apiKey?: string,
  name?: string,
  fetch?: typeof globalThis.fetch,
): LanguageModelV4 {
  return createOpenAI({
    apiKey: apiKey ?? 'not-needed',
    baseURL,
    ...(name ? { name } : {}),
    ...(fetch ? { fetch } : {}),
  }).chat(modelId);
}

/** Anthropic's Messages API; `baseURL` for a proxy (and the tests' local server). */
export function anthropicModel(
  modelId: string,
  apiKey: string,
  baseURL?: string,
  fetch?: typeof globalThis.fetch,
): LanguageModelV4 {
  return createAnthropic({ apiKey, ...(baseURL ? { baseURL } : {}), ...(fetch ? { fetch } : {}) })(modelId);
}

export function getLanguageModel(env: ModelEnv = process.env): LanguageModelSelection {
  const apiKey = nonEmpty(env.OPENAI_API_KEY);
  const baseURL = nonEmpty(env.OPENAI_BASE_URL);
  // A base URL alone selects that endpoint: Ollama, LM Studio and llama.cpp servers need no key.
  if (!apiKey && !baseURL) return { model: offlineModel(env), label: OFFLINE_LABEL, kind: 'offline' };
  const modelId = nonEmpty(env.OPENAI_MODEL) ?? DEFAULT_OPENAI_MODEL;
  const contextWindow = contextWindowFor(modelId, env);
  const model = baseURL ? compatibleModel(modelId, baseURL, apiKey) : openAIModel(modelId, apiKey!);
  const label = baseURL ? `${modelId} via ${displayBaseUrl(baseURL)}` : `OpenAI ${modelId}`;
  return { model, label, kind: 'openai', ...(contextWindow === undefined ? {} : { contextWindow }) };
}
