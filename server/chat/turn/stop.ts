/**
 * The one way to stop a chat's turn, wherever it runs: the Stop button, deleting a chat and deleting a person all
 * come here. A turn of this process is aborted and waited for (its answer is stored, its scripts have ended: they
 * run under the turn's signal), so the next message is not refused as "still answering". A turn of another instance
 * is asked to stop through its lease (`leases.ts`: NOTIFY on PostgreSQL, else its next heartbeat); `wait` then also
 * waits until that instance has let the chat go, which deleting needs and the Stop button does not.
 */
import type { RunningTurns } from '../running/active-turns';
import type { TurnLeases } from '../running/leases';

export interface StopOptions {
  /** The app's running turns (`app.turns`); absent: none of this process is seen (the CLI runs no turns). */
  turns?: Pick<RunningTurns, 'stop' | 'wait'>;
  /** The leases shared by instances (`ChatStore.leases`); absent: only this process's turns are seen. */
  leases?: TurnLeases;
  /** Also wait for a turn of another instance to end (bounded by one lease expiry). */
  wait?: boolean;
}

/** `stopped`: this process's turn ended; `elsewhere`: another instance was asked; `idle`: nothing ran anywhere. */
export type StopOutcome = 'stopped' | 'elsewhere' | 'idle';

export async function stopChat(chatId: string, options: StopOptions = {}): Promise<StopOutcome> {
  const { turns, leases, wait = false } = options;
  if (turns?.stop(chatId)) {
    await turns.wait(chatId);
    return 'stopped';
  }
  if (!leases || !(await leases.requestStop(chatId))) return 'idle';
  if (wait) await leases.waitForRelease(chatId);
  return 'elsewhere';
}
