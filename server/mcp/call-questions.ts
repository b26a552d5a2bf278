/**
 * A server's questions during a tool call (`elicitation/create`), for one MCP client: the capability it declares,
 * the handler that routes a question to the call that caused it, and how a call runs so that its time limit stops
 * while the person answers. Both the operator's connections (manager.ts) and a person's own (people.ts) use it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ElicitAnswer, ElicitParams } from './elicitation';

/** Form answers get the schema's defaults for fields left out (SEP-1034); URL mode opens a link for the person. */
export const ELICITATION_CAPABILITY = { elicitation: { form: { applyDefaults: true }, url: {} } } as const;

/**
 * Answers a server's `elicitation/create` made during one call: the chat asks the person, a headless caller answers
 * itself (`acceptWithDefaults`, elicitation.ts). `signal` ends when the call does.
 */
export type McpElicit = (params: ElicitParams, signal: AbortSignal) => Promise<ElicitAnswer>;

interface CallContext {
  elicit?: McpElicit;
  /** Aborted when the call ends: a form still open for it is withdrawn. */
  ended: AbortController;
}

/** The longest a call that may ask the person runs, questions and all. */
const ELICIT_CALL_MS = 60 * 60_000;

/** A call's time limit that stops while `paused` work (the person answering) runs, and starts again after it. */
function serverDeadline(ms: number) {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let pauses = 0;
  const arm = () => {
    timer = setTimeout(() => controller.abort(), ms);
  };
  arm();
  return {
    signal: controller.signal,
    async paused<T>(work: () => Promise<T>): Promise<T> {
      clearTimeout(timer);
      pauses++;
      try {
        return await work();
      } finally {
        if (--pauses === 0 && !controller.signal.aborted) arm();
      }
    },
    stop: () => clearTimeout(timer),
  };
}

/** What the SDK's request options for one call are. */
export interface CallLimits {
  timeout: number;
  maxTotalTimeout: number;
  signal?: AbortSignal;
}

export interface CallQuestions {
  /**
   * Routes a question to the call that caused it: the call in whose async context it arrived, else (a stdio server's
   * request, read from its stdout) the client's one call under way. Anything else (no call, two calls at once, a call
   * that did not say how to ask) is declined: never a form no turn asked for.
   */
  handle(params: ElicitParams): Promise<ElicitAnswer>;
  /**
   * Runs one call with its way of answering questions. With `elicit`, the call's own clock (`timeoutMs`) stops while
   * the person answers, under a one-hour ceiling; `timedOut()` says whether that clock ran out.
   */
  run<T>(
    options: { timeoutMs: number; signal?: AbortSignal; elicit?: McpElicit },
    call: (limits: CallLimits) => Promise<T>,
  ): { result: Promise<T>; timedOut: () => boolean };
}

export function createCallQuestions(): CallQuestions {
  const current = new AsyncLocalStorage<CallContext>();
  const calls = new Set<CallContext>();
  return {
    async handle(params) {
      const inContext = current.getStore();
      const call = inContext && calls.has(inContext) ? inContext : calls.size === 1 ? [...calls][0] : undefined;
      if (!call?.elicit) return { action: 'decline' };
      return call.elicit(params, call.ended.signal);
    },
    run(options, call) {
      const { timeoutMs, signal, elicit } = options;
      const deadline = serverDeadline(timeoutMs);
      const context: CallContext = {
        ...(elicit ? { elicit: (params, s) => deadline.paused(() => elicit(params, s)) } : {}),
        ended: new AbortController(),
      };
      calls.add(context);
      const limits: CallLimits = elicit
        ? {
            timeout: ELICIT_CALL_MS,
            maxTotalTimeout: ELICIT_CALL_MS,
            signal: signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal,
          }
        : { timeout: timeoutMs, maxTotalTimeout: timeoutMs, ...(signal ? { signal } : {}) };
      const result = current
        .run(context, () => call(limits))
        .finally(() => {
          deadline.stop();
          calls.delete(context);
          context.ended.abort();
        });
      return { result, timedOut: () => deadline.signal.aborted };
    },
  };
}
