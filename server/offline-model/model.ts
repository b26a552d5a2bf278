/**
 * The built-in model for a machine with no API key: a real `LanguageModelV4` that sees only what any model sees
 * (prompt, tools, tool choice) and answers deterministically. It picks skills with the same matcher as the slash
 * menu, calls the skill tools like a hosted model would, and reports what the tools returned. The decisions live
 * in `planner.ts`; this file speaks the V4 protocol (stream parts, usage, abort).
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { createMatcher } from '../skills/catalog/match';
import { createPlanner, type MatcherFactory, type OfflinePlan } from './planner';

export const OFFLINE_PROVIDER = 'skillchat';
export const OFFLINE_MODEL_ID = 'offline';

export interface OfflineModelOptions {
  /**
   * Pause between streamed chunks, so the UI visibly streams. 0 (the default) emits everything at once: tests and
   * scripted runs should not wait.
   */
  chunkDelayMs?: number;
  /** Skill ranking; defaults to `createMatcher` from `server/skills/catalog/match.ts` (the slash menu's matcher). */
  createMatcher?: MatcherFactory;
}

/** FNV-1a: ids derived from the prompt keep the whole output a pure function of the input. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** No tokenizer for a model that has none: about four characters per token, like the usual rule of thumb. */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function usageFor(promptText: string, outputText: string): LanguageModelV4Usage {
  const input = estimateTokens(promptText);
  const output = estimateTokens(outputText);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

/** Words with their trailing whitespace, so the deltas concatenate back to exactly the text. */
export function chunkText(text: string): string[] {
  const chunks = text.match(/\s*\S+\s*/g) ?? [];
  return chunks.length > 0 ? chunks : text === '' ? [] : [text];
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

interface PlannedStep {
  plan: OfflinePlan;
  id: string;
  promptText: string;
}

function toStreamParts(step: PlannedStep, modelId: string): LanguageModelV4StreamPart[] {
  const { plan, id } = step;
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    // A fixed timestamp: the same prompt yields the same stream, byte for byte.
    { type: 'response-metadata', id: `offline-${id}`, modelId, timestamp: new Date(0) },
  ];
  let outputText = '';
  if (plan.type === 'text') {
    const textId = `text-${id}`;
    parts.push({ type: 'text-start', id: textId });
    for (const delta of chunkText(plan.text)) parts.push({ type: 'text-delta', id: textId, delta });
    parts.push({ type: 'text-end', id: textId });
    outputText = plan.text;
  } else {
    plan.calls.forEach((call, i) => {
      const toolCallId = `call_${id}_${i}`;
      const input = JSON.stringify(call.input);
      parts.push(
        { type: 'tool-input-start', id: toolCallId, toolName: call.toolName },
        { type: 'tool-input-delta', id: toolCallId, delta: input },
        { type: 'tool-input-end', id: toolCallId },
        { type: 'tool-call', toolCallId, toolName: call.toolName, input },
      );
      outputText += input;
    });
  }
  const unified = plan.type === 'text' ? 'stop' : 'tool-calls';
  parts.push({ type: 'finish', finishReason: { unified, raw: unified }, usage: usageFor(step.promptText, outputText) });
  return parts;
}

export function createOfflineModel(options: OfflineModelOptions = {}): LanguageModelV4 {
  const plan = createPlanner(options.createMatcher ?? createMatcher);
  const delay = options.chunkDelayMs ?? 0;

  function planStep(call: LanguageModelV4CallOptions): PlannedStep {
    if (call.abortSignal?.aborted) throw abortError(call.abortSignal);
    const promptText = JSON.stringify(call.prompt);
    // The step's ids include the tool results so far, so every step of a turn gets fresh tool-call ids.
    return { plan: plan(call), id: hash(promptText), promptText };
  }

  return {
    specificationVersion: 'v4',
    provider: OFFLINE_PROVIDER,
    modelId: OFFLINE_MODEL_ID,
    // Files and URLs are not read, so none are passed through as URLs.
    supportedUrls: {},

    async doGenerate(call): Promise<LanguageModelV4GenerateResult> {
      const step = planStep(call);
      const content: LanguageModelV4Content[] =
        step.plan.type === 'text'
          ? [{ type: 'text', text: step.plan.text }]
          : step.plan.calls.map((c, i) => ({
              type: 'tool-call',
              toolCallId: `call_${step.id}_${i}`,
              toolName: c.toolName,
              input: JSON.stringify(c.input),
            }));
      const unified = step.plan.type === 'text' ? 'stop' : 'tool-calls';
      const outputText = step.plan.type === 'text' ? step.plan.text : JSON.stringify(step.plan.calls);
      return {
        content,
        finishReason: { unified, raw: unified },
        usage: usageFor(step.promptText, outputText),
        response: { id: `offline-${step.id}`, modelId: OFFLINE_MODEL_ID, timestamp: new Date(0) },
        warnings: [],
      };
    },

    async doStream(call): Promise<LanguageModelV4StreamResult> {
      const parts = toStreamParts(planStep(call), OFFLINE_MODEL_ID);
      const signal = call.abortSignal;
      let index = 0;
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        // Pull, not a loop in `start`: nothing is produced faster than it is read, and a cancel stops it at once.
        async pull(controller) {
          try {
            if (signal?.aborted) throw abortError(signal);
            const part = parts[index++];
            if (part === undefined) {
              controller.close();
              return;
            }
            if (delay > 0 && part.type === 'text-delta') await sleep(delay, signal);
            controller.enqueue(part);
          } catch (error) {
            controller.error(error);
          }
        },
      });
      return { stream };
    },
  };
}
