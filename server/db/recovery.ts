/**
 * Recovery after a crash, written once: drop the leases of this host's dead processes (a `kill -9` and a restart:
 * their answers need not wait for the expiry), then mark `interrupted` every `streaming` answer whose chat has no
 * live lease, and every tool call in them that was still running (`interruptToolParts`). Answers another live
 * instance is writing (its lease's heartbeat is fresh) are spared. Run when the
 * database opens (both dialects) and by the running server's sweep (`server/chat/running/leases.ts`).
 *
 * The steps are a generator of queries, so the same steps run synchronously on SQLite inside `openDb` (which
 * reports the count at once) and awaited on PostgreSQL.
 */
import { eq, inArray } from 'drizzle-orm';
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
    .returning({ id: t.messages.id, parts: t.messages.parts });
  for (const row of marked) {
    const parts = interruptToolParts(String(row.parts));
    if (parts !== null)
      yield db
        .update(t.messages)
        .set({ parts })
        .where(eq(t.messages.id, String(row.id)))
        .returning({ id: t.messages.id });
  }
  return { leasesDropped: dropped.length, interrupted: marked.length };
}

/** Tool part states of a call still under way: no result yet, or only a preliminary one. */
const RUNNING = new Set(['input-streaming', 'input-available', 'approval-responded']);

export const INTERRUPTED_TOOL_ERROR =
  'Interrupted: the server stopped while this ran, so its result was lost (it may or may not have finished).';

/**
 * An interrupted answer's parts (JSON) with every tool call that was still running ended as an error that says so:
 * a card must not show "running" for a call no process runs. Null when there is none (or the JSON is not parts).
 */
export function interruptToolParts(json: string): string | null {
  let parts: unknown;
  try {
    parts = JSON.parse(json);
  } catch {
    return null;
  }
  if (!Array.isArray(parts)) return null;
  let changed = false;
  const next = parts.map((part: unknown) => {
    if (!part || typeof part !== 'object') return part;
    const p = part as Record<string, unknown>;
    const tool = typeof p.type === 'string' && (p.type.startsWith('tool-') || p.type === 'dynamic-tool');
    const running =
      typeof p.state === 'string' && (RUNNING.has(p.state) || (p.state === 'output-available' && p.preliminary));
    if (!tool || !running) return part;
    changed = true;
    const { output: _, preliminary: __, ...rest } = p;
    return { ...rest, state: 'output-error', errorText: INTERRUPTED_TOOL_ERROR };
  });
  return changed ? JSON.stringify(next) : null;
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
