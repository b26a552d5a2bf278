/**
 * The running-turn guard shared by instances (docs/TEAM-SERVER.md, "Two instances"). A turn takes its chat's lease
 * row (`server/db/turn-leases.ts`) after the in-process slot (`active-turns.ts`, which keeps the local abort
 * controller); no lease means a live turn runs on another instance: 409. While turns run here, a tick every
 * `heartbeatMs` refreshes their leases, aborts those whose Stop was pressed elsewhere (or whose lease was lost), and
 * marks `interrupted` the answers of instances that died (expired leases). On PostgreSQL one dedicated connection
 * LISTENs on `skillchat_stop`, so a Stop on another instance lands at once; the tick is the fallback (SQLite
 * processes, a dropped LISTEN connection).
 */
import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { Database } from '../db/client';
import {
  acquireTurnLease,
  heartbeatTurnLeases,
  type LeaseTimings,
  leaseTimings,
  markOrphanedAnswersInterrupted,
  newInstanceId,
  releaseTurnLease,
  requestTurnStop,
  setTurnLeaseMessage,
} from '../db/turn-leases';
import { stopTurnAndWait } from './active-turns';

export const STOP_CHANNEL = 'skillchat_stop';

export interface TurnLeases {
  readonly instanceId: string;
  readonly timings: LeaseTimings;
  /** Takes the chat's lease for a turn of this process; `abort` is called on a Stop from elsewhere. False: 409. */
  acquire(chatId: string, abort: () => void): Promise<boolean>;
  /** Records the answer the turn writes. */
  setMessage(chatId: string, messageId: string): Promise<void>;
  /** Ends the lease (the turn's `finally`). */
  release(chatId: string): Promise<void>;
  /** Stop pressed here for a turn of another instance: flags its lease and notifies. False: nothing runs anywhere. */
  requestStop(chatId: string): Promise<boolean>;
  /** Starts the periodic sweep (and, on PostgreSQL, the LISTEN connection). Idempotent. */
  start(): Promise<void>;
  /** One heartbeat tick (the timer's work; tests call it directly). */
  tick(): Promise<void>;
  /** Stops the timer and the LISTEN connection. */
  close(): Promise<void>;
}

const g = globalThis as typeof globalThis & { __skillchatLeases?: WeakMap<object, TurnLeases> };

/** The process's lease coordinator for a database (one per connection: Next dev reloads share it). */
export function turnLeasesFor(d: Database): TurnLeases {
  g.__skillchatLeases ??= new WeakMap();
  const key = d.native.db;
  let leases = g.__skillchatLeases.get(key);
  if (!leases) {
    leases = createTurnLeases(d);
    g.__skillchatLeases.set(key, leases);
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
      const marked = await markOrphanedAnswersInterrupted(d, { expiryMs: timings.expiryMs });
      if (marked > 0) console.warn(`[skillchat] ${marked} answer(s) of a stopped instance marked interrupted`);
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

  return {
    instanceId,
    timings,
    async acquire(chatId, abort) {
      const won = await acquireTurnLease(d, { chatId, instanceId, expiryMs: timings.expiryMs });
      if (won) {
        local.set(chatId, abort);
        ensureTimer();
      }
      return won;
    },
    async setMessage(chatId, messageId) {
      await setTurnLeaseMessage(d, chatId, instanceId, messageId);
    },
    async release(chatId) {
      local.delete(chatId);
      try {
        await releaseTurnLease(d, chatId, instanceId);
      } finally {
        maybeStopTimer();
      }
    },
    async requestStop(chatId) {
      const owner = await requestTurnStop(d, chatId, { expiryMs: timings.expiryMs });
      if (!owner) return false;
      if (owner === instanceId) abortLocal(chatId);
      else if (d.dialect === 'pg') await d.db.execute(sql`SELECT pg_notify(${STOP_CHANNEL}, ${chatId})`);
      return true;
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

/**
 * The Stop button: aborts the chat's turn when it runs in this process and waits until its answer is stored
 * (`stopped`); otherwise flags the lease of the instance running it (`elsewhere`: that instance aborts at once on
 * PostgreSQL's NOTIFY, or within one heartbeat); `idle` when nothing runs anywhere.
 */
export async function stopChatTurn(
  chatId: string,
  leases: TurnLeases | undefined,
): Promise<'stopped' | 'elsewhere' | 'idle'> {
  if (await stopTurnAndWait(chatId)) return 'stopped';
  if (leases && (await leases.requestStop(chatId))) return 'elsewhere';
  return 'idle';
}
