/**
 * Incremental persistence of a streaming answer: a copy of the UI message chunks is folded into the message as the
 * browser would see it, and written at most every `intervalMs` while it changes and at once at each tool result.
 * A hard kill then loses at most about `intervalMs` of text; the restart marks the row `interrupted`.
 */
import { readUIMessageStream, type UIMessageChunk } from 'ai';
import type { ChatMessage } from './types';

export const PROGRESS_INTERVAL_MS = 1000;

/** Tool parts that have their result: a finished step worth writing at once. */
function settledTools(message: ChatMessage): number {
  let settled = 0;
  for (const part of message.parts) {
    if (!('toolCallId' in part) || !('state' in part)) continue;
    if (part.state === 'output-available' || part.state === 'output-error' || part.state === 'output-denied') {
      settled += 1;
    }
  }
  return settled;
}

export async function persistAsItStreams(input: {
  chunks: ReadableStream<UIMessageChunk>;
  /** The assistant message being continued (approval answers), or undefined for a new one. */
  continuing?: ChatMessage;
  /** Writes the parts so far, in one transaction; a no-op once the answer has been finished. */
  save: (parts: ChatMessage['parts']) => void;
  intervalMs?: number;
}): Promise<void> {
  const intervalMs = input.intervalMs ?? PROGRESS_INTERVAL_MS;
  let latest: ChatMessage | undefined;
  let dirty = false;
  let tools = input.continuing ? settledTools(input.continuing) : 0;
  const flush = () => {
    if (!dirty || !latest) return;
    dirty = false;
    try {
      input.save(latest.parts);
    } catch (error) {
      // The final write on end still runs; a failed progress write must not end the answer.
      console.error('[skillchat] could not store the answer so far', error);
    }
  };
  const timer = setInterval(flush, intervalMs);
  try {
    for await (const message of readUIMessageStream<ChatMessage>({
      message: input.continuing,
      stream: input.chunks,
      onError: () => {},
    })) {
      latest = message;
      dirty = true;
      const settled = settledTools(message);
      if (settled > tools) {
        tools = settled;
        flush();
      }
    }
  } finally {
    clearInterval(timer);
  }
}
