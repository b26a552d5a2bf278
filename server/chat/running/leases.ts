/**
 * The running-turn guard shared by instances (docs/TEAM-SERVER.md, "Two instances"). A turn takes its chat's lease
 * row (`server/db/turn-leases.ts`) after the in-process slot (`active-turns.ts`, which keeps the local abort
 * controller); no lease means a live turn runs on another instance: 409. The row's later writes ride in the answer's
 * own transactions (`chat/db-store.ts`): its `streaming` row records the answer on the lease, its last write deletes
 * the lease. While turns run here, a tick every `heartbeatMs` refreshes their leases, aborts those whose Stop was
 * pressed elsewhere (or whose lease was lost), and runs the recovery (`server/db/recovery.ts`) for instances that
 * died. On PostgreSQL one dedicated connection LISTENs on `skillchat_stop`, so a Stop on another instance lands at
 * once; the tick is the fallback (SQLite processes, a dropped LISTEN connection).
 */
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { type Database, withDb } from '../../db/client';
import { recoverInterruptedAnswers } from '../../db/recovery';
import {
  acquireTurnLease,
  getTurnLease,
  heartbeatTurnLeases,
  type LeaseTimings,
  leaseTimings,
  newInstanceId,
  releaseTurnLease,
  requestTurnStop,
} from '../../db/turn-leases';
import { turnProcess } from './process';

export const STOP_CHANNEL = 'skillchat_stop';

/** A transaction to take a lease in: its database, and how to run something once it commits. */
export interface LeaseTransaction {
  d: Database;
  afterCommit: (fn: () => void) => void;
}

export interface TurnLeases {
  readonly instanceId: string;
  readonly timings: LeaseTimings;
  /**
   * Takes the chat's lease for a turn of this process; `abort` is called on a Stop from elsewhere. False: 409. With
   * `within`, in that transaction (`ChatStore.takeLease`): the lease is watched (heartbeat, remote Stop) only once it
   * commits, since a heartbeat before then would not find the row and would abort the turn.
   */
  acquire(chatId: string, abort: () => void, within?: LeaseTransaction): Promise<boolean>;
  /** Ends the lease (the turn's `finally`); writes nothing when its row already went with the answer (`ended`). */
  release(chatId: string): Promise<void>;
  /** The lease's row was deleted in the answer's last transaction (`ChatStore.finishAssistantMessage`). */
  ended(chatId: string): void;
  /** Stop pressed here for a turn of another instance: flags its lease and notifies. False: nothing runs anywhere. */
  requestStop(chatId: string): Promise<boolean>;
  /** Resolves once the chat has no live lease (its turn ended wherever it ran), or after one expiry at most. */
  waitForRelease(chatId: string): Promise<void>;
  /** Starts the periodic sweep (and, on PostgreSQL, the LISTEN connection). Idempotent. */
  start(): Promise<void>;
  /** One heartbeat tick (the timer's work; tests call it directly). */
  tick(): Promise<void>;
  /** Stops the timer and the LISTEN connection. */
  close(): Promise<void>;
}

/** The process's lease coordinator for a database (one per connection, kept in the turn runtime's record). */
export function turnLeasesFor(d: Database): TurnLeases {
  const all = turnProcess().leases;
  const key = d.native.db;
  let leases = all.get(key);
  if (!leases) {
    leases = createTurnLeases(d);
    all.set(key, leases);
  }
  return leases;
}

export function createTurnLeases(
  d: Database,
  options: { instanceId?: string; timings?: LeaseTimings } = {},
): TurnLeases {
  const instanceId = options.instanceId ?? newInstanceId();
  const timings = options.timings ?? leaseTimings();
  const local = new Map<string, () => void>();
  // Leases of this process whose row went with their answer's last write: `release` has nothing left to delete.
  const ended = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let started = false;
  let closed = false;
  let listener: pg.Client | undefined;
  let ticking: Promise<void> | undefined;
  let warned = false;

  const abortLocal = (chatId: string) => {
    const abort = local.get(chatId);
    if (abort) {
      local.delete(chatId);
      abort();
    }
  };

  const ensureTimer = () => {
    if (timer || closed) return;
    timer = setInterval(() => {
      void tick();
    }, timings.heartbeatMs);
    timer.unref();
  };
  const maybeStopTimer = () => {
    if (!started && local.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  const work = async () => {
    const chatIds = [...local.keys()];
    if (chatIds.length > 0) {
      const { held, stopRequested } = await heartbeatTurnLeases(d, instanceId, chatIds);
      for (const chatId of chatIds) {
        // Stopped elsewhere, or the lease expired and another instance took it: this turn must end.
        if (stopRequested.has(chatId) || !held.has(chatId)) abortLocal(chatId);
      }
    }
    if (started) {
      const { interrupted } = await withDb(d, () =>
        recoverInterruptedAnswers(d, { expiryMs: timings.expiryMs, instanceId }),
      );
      if (interrupted > 0)
        console.warn(`[skillchat] ${interrupted} answer(s) of a stopped instance marked interrupted`);
    }
  };
  const tick = (): Promise<void> => {
    // One tick at a time: a slow database must not pile them up.
    ticking ??= work()
      .then(() => {
        warned = false;
      })
      .catch((error: unknown) => {
        if (!warned) console.warn('[skillchat] turn lease heartbeat failed', error);
        warned = true;
      })
      .finally(() => {
        ticking = undefined;
        maybeStopTimer();
      });
    return ticking;
  };

  const listen = async (): Promise<void> => {
    const native = d.native;
    if (native.dialect !== 'pg' || closed) return;
    const client = new pg.Client(native.db.$client.options);
    const retry = () => {
      if (listener === client) listener = undefined;
      client.end().catch(() => {});
      if (!closed) setTimeout(() => void listen(), timings.heartbeatMs).unref();
    };
    client.on('notification', (message) => {
      if (message.channel === STOP_CHANNEL && message.payload) abortLocal(message.payload);
    });
    client.on('error', retry);
    try {
      await client.connect();
      await client.query(`LISTEN ${STOP_CHANNEL}`);
      listener = client;
    } catch (error) {
      console.warn('[skillchat] could not LISTEN for Stop requests; falling back to the heartbeat', error);
      retry();
    }
  };

  const watch = (chatId: string, abort: () => void) => {
    ended.delete(chatId);
    local.set(chatId, abort);
    ensureTimer();
  };

  return {
    instanceId,
    timings,
    async acquire(chatId, abort, within) {
      const won = await acquireTurnLease(within?.d ?? d, { chatId, instanceId, expiryMs: timings.expiryMs });
      if (!won) return false;
      if (within) within.afterCommit(() => watch(chatId, abort));
      else watch(chatId, abort);
      return true;
    },
    async release(chatId) {
      local.delete(chatId);
      try {
        if (!ended.delete(chatId)) await releaseTurnLease(d, chatId, instanceId);
      } finally {
        maybeStopTimer();
      }
    },
    ended(chatId) {
      local.delete(chatId);
      ended.add(chatId);
      maybeStopTimer();
    },
    async requestStop(chatId) {
      const owner = await requestTurnStop(d, chatId, { expiryMs: timings.expiryMs });
      if (!owner) return false;
      if (owner === instanceId) abortLocal(chatId);
      else if (d.dialect === 'pg') await d.db.execute(sql`SELECT pg_notify(${STOP_CHANNEL}, ${chatId})`);
      return true;
    },
    async waitForRelease(chatId) {
      const until = Date.now() + timings.expiryMs;
      const every = Math.min(250, timings.heartbeatMs);
      for (;;) {
        const lease = await getTurnLease(d, chatId);
        if (!lease || lease.heartbeatAt.getTime() < Date.now() - timings.expiryMs || Date.now() >= until) return;
        await new Promise((resolve) => setTimeout(resolve, every));
      }
    },
    async start() {
      if (started || closed) return;
      started = true;
      ensureTimer();
      await listen();
    },
    tick,
    async close() {
      closed = true;
      started = false;
      if (timer) clearInterval(timer);
      timer = undefined;
      await ticking;
      const client = listener;
      listener = undefined;
      await client?.end().catch(() => {});
    },
  };
}
