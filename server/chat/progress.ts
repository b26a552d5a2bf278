/**
 * Incremental persistence of a streaming answer: the UI message chunks of a copy of the stream are kept, and at
 * most every `intervalMs` while new ones come, and at once at each tool result, they are folded into the message
 * as the browser would see it and written (one transaction). A hard kill then loses at most about `intervalMs` of
 * text; the restart marks the row `interrupted`. Folding only when writing keeps the per-chunk cost to a push.
 */
import { readUIMessageStream, type UIMessageChunk } from 'ai';
import type { ChatMessage } from './types';

export const PROGRESS_INTERVAL_MS = 1000;

const TOOL_RESULTS = new Set(['tool-output-available', 'tool-output-error', 'tool-output-denied']);

async function fold(chunks: UIMessageChunk[], continuing: ChatMessage | undefined): Promise<ChatMessage | undefined> {
  let last: ChatMessage | undefined;
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  for await (const message of readUIMessageStream<ChatMessage>({ message: continuing, stream, onError: () => {} })) {
    last = message;
  }
  return last;
}

export async function persistAsItStreams(input: {
  chunks: ReadableStream<UIMessageChunk>;
  /** The assistant message being continued (approval answers), or undefined for a new one. */
  continuing?: ChatMessage;
  /** Writes the parts so far, in one transaction; a no-op once the answer has been finished. */
  save: (parts: ChatMessage['parts']) => void | Promise<void>;
  intervalMs?: number;
}): Promise<void> {
  const intervalMs = input.intervalMs ?? PROGRESS_INTERVAL_MS;
  const seen: UIMessageChunk[] = [];
  let written = 0;
  let writing: Promise<void> = Promise.resolve();
  let ended = false;
  // Writes run one after another, each with every chunk seen when it starts.
  const flush = () => {
    writing = writing.then(async () => {
      if (ended || seen.length === written) return;
      const upTo = seen.length;
      const message = await fold(seen.slice(0, upTo), input.continuing);
      if (ended || !message) return;
      written = upTo;
      try {
        await input.save(message.parts);
      } catch (error) {
        // The final write on end still runs; a failed progress write must not end the answer.
        console.error('[skillchat] could not store the answer so far', error);
      }
    });
  };
  const timer = setInterval(flush, intervalMs);
  try {
    const reader = input.chunks.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      seen.push(value);
      if (TOOL_RESULTS.has(value.type)) flush();
    }
  } finally {
    // The end of the stream is the turn's own final write (onEnd); nothing more to store here.
    ended = true;
    clearInterval(timer);
  }
}
