/**
 * Rules shared by the lease queries (`turn-leases.ts`) and the open-time recovery (`client.ts`), kept apart so
 * neither imports the other.
 */
import os from 'node:os';
import { type SQL, sql } from 'drizzle-orm';
import type * as pgSchema from './schema-pg';

export interface LeaseTimings {
  /** How often the running instance refreshes its leases (and sweeps for expired ones). */
  heartbeatMs: number;
  /** A lease whose heartbeat is older than this is dead: its chat may be taken and its answer marked interrupted. */
  expiryMs: number;
}

/** `SKILLCHAT_TURN_HEARTBEAT_MS` (default 10 s) and `SKILLCHAT_TURN_LEASE_MS` (default three heartbeats, at least 30 s). */
export function leaseTimingsFromEnv(env: NodeJS.ProcessEnv = process.env): LeaseTimings {
  const heartbeatMs = positive(env.SKILLCHAT_TURN_HEARTBEAT_MS) ?? 10_000;
  const expiryMs = positive(env.SKILLCHAT_TURN_LEASE_MS) ?? Math.max(3 * heartbeatMs, 30_000);
  return { heartbeatMs, expiryMs: Math.max(expiryMs, 2 * heartbeatMs) };
}

function positive(value: string | undefined): number | undefined {
  const n = Number(value);
  return value && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;
}

/**
 * The messages recovery may mark `interrupted`: still `streaming`, in a chat with no live lease (no row, or a
 * heartbeat older than `cutoff`). Shared by the open-time recovery (sync SQLite, `client.ts`) and the sweep.
 */
export function orphanedStreamingWhere(t: typeof pgSchema, cutoff: Date): SQL {
  // `status` as a literal, not a bound parameter, so SQLite can use the partial index `messages_streaming_idx`.
  return sql`${t.messages.status} = 'streaming' AND NOT EXISTS (SELECT 1 FROM ${t.chatTurns} WHERE ${t.chatTurns.chatId} = ${t.messages.chatId} AND ${t.chatTurns.heartbeatAt} >= ${sql.param(cutoff, t.chatTurns.heartbeatAt)})`;
}

/** True when `instanceId` (`host:pid:random`) names a process of this host that no longer runs (or is now this process). */
export function isDeadLocalInstance(instanceId: string, host: string = os.hostname()): boolean {
  const parts = instanceId.split(':');
  if (parts.length < 3) return false;
  const pid = Number(parts.at(-2));
  if (parts.slice(0, -2).join(':') !== host || !Number.isInteger(pid)) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
