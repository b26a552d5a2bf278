/**
 * Recovery after a crash, written once: drop the leases of this host's dead processes (a `kill -9` and a restart:
 * their answers need not wait for the expiry), then mark `interrupted` every `streaming` answer whose chat has no
 * live lease. Answers another live instance is writing (its lease's heartbeat is fresh) are spared. Run when the
 * database opens (both dialects) and by the running server's sweep (`server/chat/running/leases.ts`).
 *
 * The steps are a generator of queries, so the same steps run synchronously on SQLite inside `openDb` (which
 * reports the count at once) and awaited on PostgreSQL.
 */
import { inArray } from 'drizzle-orm';
import type { Database } from './client';
import { isDeadLocalInstance, leaseTimingsFromEnv, orphanedStreamingWhere } from './lease-rules';

export interface RecoveryOptions {
  /** A lease whose heartbeat is older than this is dead (default: `leaseTimingsFromEnv`). */
  expiryMs?: number;
  now?: Date;
  /** This process's instance id: its own leases are never dropped. */
  instanceId?: string;
}

export interface Recovery {
  /** Lease rows of this host's dead processes, deleted. */
  leasesDropped: number;
  /** Answers marked `interrupted`. */
  interrupted: number;
}

type Rows = Array<Record<string, unknown>>;

function* recoverySteps(d: Database, options: RecoveryOptions): Generator<PromiseLike<Rows>, Recovery, Rows> {
  const { t, db } = d;
  const now = options.now ?? new Date();
  const expiryMs = options.expiryMs ?? leaseTimingsFromEnv().expiryMs;
  const leases = yield db.select({ instanceId: t.chatTurns.instanceId }).from(t.chatTurns);
  const dead = [...new Set(leases.map((row) => String(row.instanceId)))].filter(
    (id) => id !== options.instanceId && isDeadLocalInstance(id),
  );
  const dropped =
    dead.length === 0
      ? []
      : yield db
          .delete(t.chatTurns)
          .where(inArray(t.chatTurns.instanceId, dead))
          .returning({ chatId: t.chatTurns.chatId });
  const marked = yield db
    .update(t.messages)
    .set({ status: 'interrupted', updatedAt: now })
    .where(orphanedStreamingWhere(t, new Date(now.getTime() - expiryMs)))
    .returning({ id: t.messages.id });
  return { leasesDropped: dropped.length, interrupted: marked.length };
}

/**
 * The recovery on either dialect. On SQLite it runs synchronously: a caller while the server runs wraps it in
 * `withDb`, so it never lands inside another request's open transaction.
 */
export async function recoverInterruptedAnswers(d: Database, options: RecoveryOptions = {}): Promise<Recovery> {
  if (d.native.dialect === 'sqlite') return recoverInterruptedAnswersNow(d, options);
  const steps = recoverySteps(d, options);
  let step = steps.next();
  while (!step.done) step = steps.next(await step.value);
  return step.value;
}

/** SQLite only, synchronously (drizzle's `.all()` on each query): `openDb` reports what it recovered at once. */
export function recoverInterruptedAnswersNow(d: Database, options: RecoveryOptions = {}): Recovery {
  if (d.native.dialect !== 'sqlite') throw new Error('recoverInterruptedAnswersNow: SQLite only');
  const steps = recoverySteps(d, options);
  let step = steps.next();
  while (!step.done) step = steps.next((step.value as unknown as { all(): Rows }).all());
  return step.value;
}
