/**
 * What the turn runtime keeps for the whole process, in one record on `globalThis`: Next bundles the chat, Stop,
 * DELETE and stream routes and instrumentation as separate modules, and dev reloads evaluate them again, yet a chat's
 * running turn, the lease coordinator and the recorded answer stream must each be one per process.
 */
import type { ActiveTurn } from './active-turns';
import type { TurnLeases } from './leases';
import type { ResumableStreams } from './resumable';

export interface TurnProcess {
  /** The running turns, one per chat (`active-turns.ts`). */
  turns: Map<string, ActiveTurn>;
  /** Set by `drainTurns`: new turns are refused. */
  shuttingDown: boolean;
  /** The signal handlers of `server/shutdown.ts` are in place (installed once per process). */
  shutdownInstalled: boolean;
  /** The lease coordinator of each database connection (`leases.ts`). */
  leases: WeakMap<object, TurnLeases>;
  /** The running answers' recorded SSE (`resumable.ts`), created on first use. */
  streams?: ResumableStreams;
}

const g = globalThis as typeof globalThis & { __skillchatTurns?: TurnProcess };

export function turnProcess(): TurnProcess {
  g.__skillchatTurns ??= { turns: new Map(), shuttingDown: false, shutdownInstalled: false, leases: new WeakMap() };
  return g.__skillchatTurns;
}
