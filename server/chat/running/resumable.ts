/**
 * Resumable answers: a reloaded page or a second tab reconnects (`GET /api/chats/:id/stream`) and gets the running
 * answer from its first chunk, then live to its end (the AI SDK client replays it: `resumeStreamIsReplay`).
 *
 * The same pattern as `resumable-stream`, whose 2.x needs Redis; this app runs as one process, so the default store
 * keeps each running answer's SSE text in memory. A store shared by several processes (Redis, PostgreSQL
 * LISTEN/NOTIFY) implements `ResumableStreams` and replaces it.
 */
export interface ResumableStreams {
  /**
   * Starts recording a chat's answer from its SSE copy; the record goes when the stream ends (the promise resolves).
   * Each event is also handed to `onEvent` as it is recorded (the answer's progress writer reads the same copy).
   */
  publish(chatId: string, sse: ReadableStream<string>, onEvent?: (event: string) => void): Promise<void>;
  /** The chat's running answer from its beginning, following it live; null when none is running. */
  resume(chatId: string): ReadableStream<string> | null;
}

interface Recording {
  chunks: string[];
  listeners: Set<() => void>;
  ended: boolean;
}

export function createInProcessStreams(): ResumableStreams {
  const recordings = new Map<string, Recording>();
  return {
    async publish(chatId, sse, onEvent) {
      const recording: Recording = { chunks: [], listeners: new Set(), ended: false };
      recordings.set(chatId, recording);
      const notify = () => {
        for (const listener of recording.listeners) listener();
      };
      const reader = sse.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          recording.chunks.push(value);
          onEvent?.(value);
          notify();
        }
      } finally {
        recording.ended = true;
        if (recordings.get(chatId) === recording) recordings.delete(chatId);
        notify();
      }
    },
    resume(chatId) {
      const recording = recordings.get(chatId);
      if (!recording || recording.ended) return null;
      let sent = 0;
      let listener: (() => void) | undefined;
      return new ReadableStream<string>({
        start(controller) {
          listener = () => {
            while (sent < recording.chunks.length) controller.enqueue(recording.chunks[sent++]!);
            if (recording.ended) {
              recording.listeners.delete(listener!);
              controller.close();
            }
          };
          recording.listeners.add(listener);
          listener();
        },
        cancel() {
          if (listener) recording.listeners.delete(listener);
        },
      });
    },
  };
}
