/**
 * The turn's end: the answer is stored as `complete`, `aborted`, `error`, or `interrupted` when shutdown cut it, and
 * the chat's slot (and lease) is released. And the response: the stream goes to the browser, and its SSE copy is
 * drained on the server, recorded for a reconnect, and stored as it streams (a hard kill loses at most about a second).
 */
import { createUIMessageStreamResponse, type InferUIMessageChunk, type UIMessageStreamOnEndCallback } from 'ai';
import { answerProgress } from '../progress';
import { SHUTDOWN_REASON } from '../running/active-turns';
import type { ChatMessage } from '../wire-types';
import type { Answer, TurnContext } from './context';

export function safeErrorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // Model/provider errors can quote request URLs but never our files; strip anything that looks like a local path.
  return `The answer failed: ${message.replace(/(^|\s)\/[^\s'"]+/g, '$1<path>')}`.slice(0, 500);
}

/** The stream's `onEnd`: stores the answer as it ended, then ends the turn (always). */
export function finishAnswer(turn: TurnContext, answer: Answer): UIMessageStreamOnEndCallback<ChatMessage> {
  const { slot } = turn;
  return async ({ responseMessage, isAborted, outcome }) => {
    try {
      const failed = outcome.status === 'failed';
      const shutdown = isAborted && slot.controller.signal.reason === SHUTDOWN_REASON;
      await turn.deps.store.finishAssistantMessage(answer.id, {
        parts: responseMessage.parts,
        // The model's label and the answer's time, so a reloaded chat and its export show them.
        metadata: responseMessage.metadata,
        status: shutdown ? 'interrupted' : isAborted ? 'aborted' : failed ? 'error' : 'complete',
        error: failed ? safeErrorMessage('error' in outcome ? outcome.error : 'unknown error') : undefined,
      });
    } catch (error) {
      console.error('[skillchat] could not store the finished answer', error);
    } finally {
      slot.release();
    }
  };
}

export function respond(
  turn: TurnContext,
  answer: Answer,
  stream: ReadableStream<InferUIMessageChunk<ChatMessage>>,
): Response {
  const { store, incremental } = turn.deps;
  return createUIMessageStreamResponse({
    stream,
    // The SSE copy is drained on the server, so the answer is finished and stored even when the browser goes
    // away, and recorded, so a reload or a second tab can follow it (GET /api/chats/:id/stream). Its events are
    // what is stored as the answer streams.
    consumeSseStream: async ({ stream: copy }) => {
      const progress =
        incremental === false
          ? null
          : answerProgress({
              continuing: answer.continuing ? answer.history.at(-1) : undefined,
              save: (parts) => store.saveAnswerProgress(answer.id, parts),
            });
      try {
        await turn.deps.turns.streams.publish(turn.chatId, copy, progress?.push);
      } finally {
        progress?.end();
      }
    },
  });
}
