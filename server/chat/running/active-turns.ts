/**
 * The table of running turns of this process, one per chat, shared by the turn, `stopChat` and graceful shutdown.
 * A chat's slot is claimed synchronously before the turn's first await, so two requests for the same chat (two
 * approval answers sent at once, a double submit) cannot both start: the second gets a 409.
 */
import { AppError } from '../../errors';
import { processWide } from '../../process-wide';
import type { ElicitationDesk } from '../elicitations';

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

interface TurnTable {
  /** The running turns, one per chat. */
  turns: Map<string, ActiveTurn>;
  /** Set by `drainTurns`: new turns are refused. */
  shuttingDown: boolean;
}

// One table per process: the chat route starts a turn that the Stop, DELETE and stream routes and shutdown, each in
// its own bundle, must find (process-wide.ts).
const table = processWide<TurnTable>('turns', () => ({ turns: new Map(), shuttingDown: false }));

/** Claims the chat's slot or throws: 409 while another turn runs, 503 once the server is shutting down. */
export function claimTurn(chatId: string): ActiveTurn {
  if (table.shuttingDown) {
    throw new AppError('unavailable:shutting-down', 'The server is shutting down; send the message again in a moment');
  }
  if (table.turns.has(chatId)) {
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
        if (table.turns.get(chatId) === turn) table.turns.delete(chatId);
        resolve();
      };
      const hook = turn.beforeRelease;
      if (!hook) return end();
      hook()
        .catch((error: unknown) => console.warn('[skillchat] could not release the turn lease', error))
        .finally(end);
    },
  };
  table.turns.set(chatId, turn);
  return turn;
}

/** The chat's running turn in this process, if any. */
export function activeTurn(chatId: string): ActiveTurn | undefined {
  return table.turns.get(chatId);
}

export function isTurnActive(chatId: string): boolean {
  return table.turns.has(chatId);
}

/** Aborts the chat's turn when it runs in this process; false when none does. Routes stop chats with `stopChat`. */
export function stopTurn(chatId: string): boolean {
  const turn = table.turns.get(chatId);
  if (!turn) return false;
  turn.controller.abort();
  return true;
}

/** Resolves when the chat's running turn (if any) has ended and been persisted. */
export async function waitForTurn(chatId: string): Promise<void> {
  await table.turns.get(chatId)?.done;
}

/** The abort reason of turns cut short by shutdown: their answers are stored as `interrupted`, not `aborted`. */
export const SHUTDOWN_REASON = 'skillchat:shutdown';

export function isShuttingDown(): boolean {
  return table.shuttingDown;
}

/**
 * Graceful shutdown: refuse new turns, let running ones finish for up to `graceMs`, then abort the rest and wait
 * for them to be stored (as `interrupted`, see the turn). Returns how many finished and how many were cut short.
 */
export async function drainTurns(graceMs: number): Promise<{ finished: number; cut: number }> {
  table.shuttingDown = true;
  const running = [...table.turns.values()];
  if (running.length === 0) return { finished: 0, cut: 0 };
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
  return { finished: running.length - cut.length, cut: cut.length };
}

/** For tests: accept turns again after a drain. */
export function resetShutdownForTests(): void {
  table.shuttingDown = false;
}
