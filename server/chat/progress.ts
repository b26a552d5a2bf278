/**
 * Incremental persistence of a streaming answer. The answer's SSE events are handed over as they pass on their way
 * to the resumable record (`turn/finish.ts`): no copy of the stream of its own. At most every `intervalMs` while new
 * ones come, and at once at each tool result, the events so far are parsed, folded into the message as the browser
 * would see it, and written (one transaction). A hard kill then loses at most about `intervalMs` of text; the
 * restart marks the row `interrupted`. Parsing and folding only when writing keeps the per-event cost to a push.
 */
import { readUIMessageStream, type UIMessageChunk } from 'ai';
import type { ChatMessage } from './wire-types';

export const PROGRESS_INTERVAL_MS = 1000;

/**
 * An event carrying a tool's result. The same text inside a string is escaped (`\"type\"`), so only a chunk's own
 * fields match; a tool input holding such an object would cause one early write, nothing worse.
 */
const TOOL_RESULT = /"type":"tool-output-(?:available|error|denied)"/;

/** The UI message chunks of SSE events (`data: {json}\n\n`; the closing `[DONE]` and keep-alive comments carry none). */
export function chunksOfEvents(events: readonly string[]): UIMessageChunk[] {
  const chunks: UIMessageChunk[] = [];
  for (const event of events) {
    for (const line of event.split('\n')) {
      if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
      try {
        chunks.push(JSON.parse(line.slice(6)) as UIMessageChunk);
      } catch {
        // Not JSON: not one of the SDK's events (they are `JSON.stringify`'d); the final write has the answer.
      }
    }
  }
  return chunks;
}

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

export interface AnswerProgress {
  /** One SSE event of the answer, in order. */
  push(event: string): void;
  /** The stream ended: its end is the turn's own final write (onEnd), so nothing more is stored here. */
  end(): void;
}

export function answerProgress(input: {
  /** The assistant message being continued (approval answers), or undefined for a new one. */
  continuing?: ChatMessage;
  /** Writes the parts so far, in one transaction; a no-op once the answer has been finished. */
  save: (parts: ChatMessage['parts']) => void | Promise<void>;
  intervalMs?: number;
}): AnswerProgress {
  const events: string[] = [];
  // The events parsed so far: each is parsed once, at the first write that needs it.
  const chunks: UIMessageChunk[] = [];
  let parsed = 0;
  let written = 0;
  let writing: Promise<void> = Promise.resolve();
  let ended = false;
  // Writes run one after another, each with every event seen when it starts.
  const flush = () => {
    writing = writing.then(async () => {
      if (ended || events.length === written) return;
      const upTo = events.length;
      for (const chunk of chunksOfEvents(events.slice(parsed, upTo))) chunks.push(chunk);
      parsed = upTo;
      const message = await fold(chunks, input.continuing);
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
  const timer = setInterval(flush, input.intervalMs ?? PROGRESS_INTERVAL_MS);
  return {
    push(event) {
      if (ended) return;
      events.push(event);
      if (TOOL_RESULT.test(event)) flush();
    },
    end() {
      ended = true;
      clearInterval(timer);
    },
  };
}
