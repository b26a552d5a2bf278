/**
 * The running turns of one app, one per chat, shared by the turn, `stopChat` and graceful shutdown, with their
 * recorded answer streams. The app makes one (`createApp`: `app.turns`), so every route bundle reaches the same table
 * through `getApp()`. A chat's slot is claimed synchronously before the turn's first await, so two requests for the
 * same chat (two approval answers sent at once, a double submit) cannot both start: the second gets a 409.
 */
import { AppError } from '../../errors';
import type { ElicitationDesk } from '../elicitations';
import { createInProcessStreams, type ResumableStreams } from './resumable';

export interface ActiveTurn {
  controller: AbortController;
  /** Resolves when the turn has ended and its answer is stored (or the turn failed before streaming). */
  done: Promise<void>;
  /** Ends the turn's slot; called once, by whoever owns the turn. */
  release: () => void;
  /** Run by `release` before the slot ends and `done` resolves (the turn's lease row is deleted here). */
  beforeRelease?: () => Promise<void>;
  /** The MCP servers' questions to the person waiting in this turn (chat/elicitations.ts). */
  elicitations?: ElicitationDesk;
}

export interface RunningTurns {
  /** Claims the chat's slot or throws: 409 while another turn runs, 503 once the app is shutting down. */
  claim(chatId: string): ActiveTurn;
  /** The chat's running turn, if any. */
  get(chatId: string): ActiveTurn | undefined;
  /** Aborts the chat's turn when one runs; false when none does. Routes stop chats with `stopChat`. */
  stop(chatId: string): boolean;
  /** Resolves when the chat's running turn (if any) has ended and been persisted. */
  wait(chatId: string): Promise<void>;
  /** Set by `drain`: new turns are refused. */
  readonly shuttingDown: boolean;
  /**
   * Graceful shutdown: refuse new turns, let running ones finish for up to `graceMs`, then abort the rest and wait
   * for them to be stored (as `interrupted`, see the turn) and their recordings to end. Returns how many finished and
   * how many were cut short.
   */
  drain(graceMs: number): Promise<{ finished: number; cut: number }>;
  /** The running answers, recorded for a reload or a second tab (`GET /api/chats/:id/stream`). */
  readonly streams: ResumableStreams;
}

/** The abort reason of turns cut short by shutdown: their answers are stored as `interrupted`, not `aborted`. */
export const SHUTDOWN_REASON = 'skillchat:shutdown';

/** An empty table of running turns, recording answers in `streams` (default: in memory, this process). */
export function createRunningTurns(store: ResumableStreams = createInProcessStreams()): RunningTurns {
  const turns = new Map<string, ActiveTurn>();
  let shuttingDown = false;
  // An answer's recording (and the progress writes riding on it) ends a moment after its turn: drain waits for it too,
  // so nothing writes to a database about to close.
  const recording = new Set<Promise<void>>();
  const streams: ResumableStreams = {
    publish(chatId, sse, onEvent) {
      const published = store.publish(chatId, sse, onEvent);
      recording.add(published);
      const forget = () => recording.delete(published);
      published.then(forget, forget);
      return published;
    },
    resume: (chatId) => store.resume(chatId),
  };
  return {
    streams,
    get shuttingDown() {
      return shuttingDown;
    },
    claim(chatId) {
      if (shuttingDown) {
        throw new AppError(
          'unavailable:shutting-down',
          'The server is shutting down; send the message again in a moment',
        );
      }
      if (turns.has(chatId)) {
        throw new AppError('conflict:chat', 'This chat is still answering; stop it or wait for the answer to end');
      }
      const controller = new AbortController();
      let released = false;
      let resolve: () => void = () => {};
      const done = new Promise<void>((r) => {
        resolve = r;
      });
      const turn: ActiveTurn = {
        controller,
        done,
        release: () => {
          if (released) return;
          released = true;
          const end = () => {
            if (turns.get(chatId) === turn) turns.delete(chatId);
            resolve();
          };
          const hook = turn.beforeRelease;
          if (!hook) return end();
          hook()
            .catch((error: unknown) => console.warn('[skillchat] could not release the turn lease', error))
            .finally(end);
        },
      };
      turns.set(chatId, turn);
      return turn;
    },
    get: (chatId) => turns.get(chatId),
    stop(chatId) {
      const turn = turns.get(chatId);
      if (!turn) return false;
      turn.controller.abort();
      return true;
    },
    async wait(chatId) {
      await turns.get(chatId)?.done;
    },
    async drain(graceMs) {
      shuttingDown = true;
      const running = [...turns.values()];
      if (running.length === 0) {
        await Promise.allSettled([...recording]);
        return { finished: 0, cut: 0 };
      }
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), graceMs);
      });
      const ended = new Set<ActiveTurn>();
      for (const turn of running) void turn.done.then(() => ended.add(turn));
      await Promise.race([Promise.all(running.map((t) => t.done)), graceOver]);
      clearTimeout(timer);
      const cut = running.filter((t) => !ended.has(t));
      for (const turn of cut) turn.controller.abort(SHUTDOWN_REASON);
      await Promise.all(cut.map((t) => t.done));
      await Promise.allSettled([...recording]);
      return { finished: running.length - cut.length, cut: cut.length };
    },
  };
}
