/**
 * Graceful shutdown of the app process. `next start` handles SIGTERM/SIGINT itself: it closes the HTTP server,
 * which waits for every open response (an answer streaming to an open tab, with no cap) and then exits, while an
 * answer whose tab was closed is cut off with its row left `streaming`. So our handler runs first: it refuses new
 * turns (503 `unavailable:shutting-down`), gives running answers `graceMs` to end, aborts the rest, which are stored
 * as `interrupted`, closes what the app started (`close`: MCP servers, the lease sweep, the watcher, runs waiting for
 * a sandbox slot), and only then hands the signal to Next's own handler (or exits when NEXT_MANUAL_SIG_HANDLE turned
 * Next's handling off).
 */
import type { RunningTurns } from './chat/running/active-turns';
import { processWide } from './process-wide';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;
const EXIT_CODES = { SIGTERM: 143, SIGINT: 130 } as const;

export interface ShutdownOptions {
  graceMs: number;
  /** The app's running turns (`app.turns`): drained before anything is closed. */
  turns: Pick<RunningTurns, 'drain'>;
  /** Run once the turns are drained: the app's `close` (it keeps the database for requests still in flight). */
  close?: () => Promise<void>;
  log?: (line: string) => void;
}

export function installGracefulShutdown(options: ShutdownOptions): void {
  // Once per process, though dev reloads evaluate instrumentation again.
  const installed = processWide('shutdown', () => ({ done: false }));
  if (installed.done) return;
  installed.done = true;
  const log = options.log ?? ((line: string) => console.log(line));
  let draining: Promise<void> | null = null;
  for (const signal of SIGNALS) {
    // Next's listeners were installed before the app's instrumentation runs; they run after the drain instead.
    const nextHandlers = process.listeners(signal);
    process.removeAllListeners(signal);
    process.on(signal, () => {
      if (draining) return; // A second signal does not restart the grace period.
      draining = (async () => {
        const started = Date.now();
        const { finished, cut } = await options.turns.drain(options.graceMs);
        if (finished + cut > 0) {
          log(
            `[skillchat] ${signal}: ${finished} answers finished, ${cut} stored as interrupted (${Date.now() - started} ms)`,
          );
        }
        await options
          .close?.()
          .catch((error: unknown) => log(`[skillchat] ${signal}: closing the app failed: ${error}`));
        if (nextHandlers.length === 0) process.exit(EXIT_CODES[signal]);
        for (const handler of nextHandlers) handler(signal);
      })();
    });
  }
}
