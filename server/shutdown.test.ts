/**
 * Graceful shutdown's order: new turns refused and running ones drained, then what the app started closed, then the
 * signal handed to the handler that was there before (Next's own, which closes the HTTP server and exits).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../test/until';
import { createRunningTurns } from './chat/running/active-turns';
import { installGracefulShutdown } from './shutdown';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;
const before = new Map(SIGNALS.map((signal) => [signal, process.listeners(signal)]));

afterEach(() => {
  for (const signal of SIGNALS) {
    process.removeAllListeners(signal);
    for (const listener of before.get(signal) ?? []) process.on(signal, listener);
  }
});

describe('installGracefulShutdown', () => {
  it('drains the turns, closes the app, then runs the handler that was installed before it', async () => {
    for (const signal of SIGNALS) process.removeAllListeners(signal);
    const order: string[] = [];
    // Stands in for Next's handler, which exits the process.
    process.on('SIGTERM', () => order.push('next'));
    const turns = createRunningTurns();
    installGracefulShutdown({
      graceMs: 50,
      turns,
      close: async () => {
        order.push(turns.shuttingDown ? 'close after drain' : 'close before drain');
      },
      log: () => {},
    });
    // Installed once per process: a second call (a dev reload running instrumentation again) adds nothing.
    installGracefulShutdown({ graceMs: 50, turns: createRunningTurns(), log: () => {} });
    expect(process.listenerCount('SIGTERM')).toBe(1);

    process.emit('SIGTERM', 'SIGTERM');
    await until(() => (order.length === 2 ? true : undefined));
    expect(order).toEqual(['close after drain', 'next']);
    // New turns are refused once shutdown began.
    expect(() => turns.claim('late')).toThrow(/shutting down/);
  });
});
