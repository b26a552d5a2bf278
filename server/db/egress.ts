/**
 * The egress record: rows of `egress_events`, one per connection or plain-HTTP request a run made or tried through
 * its proxy. Writing in batches and the export's shape are `server/egress/record.ts`; these are only the queries.
 */
import { and, asc, count, desc, eq, type SQL, sql } from 'drizzle-orm';
import { type Database, withDb } from './client';

/** One event as the proxy reports it (server/egress/types.ts `EgressEvent`, kept structural here). */
export interface EgressEventInput {
  host: string;
  port: number;
  allowed: boolean;
  code?: string;
  reason?: string;
  skills: string[];
  requests: number;
  bytesIn: number;
  bytesOut: number;
  startedAt: number;
  durationMs: number;
}

/** The run the events belong to. */
export interface EgressRunRef {
  runId: string;
  chatId: string | null;
  userId: string | null;
}

export interface EgressEventRecord {
  id: number;
  runId: string;
  chatId: string | null;
  userId: string | null;
  skills: string[];
  host: string;
  port: number;
  allowed: boolean;
  code: string | null;
  reason: string | null;
  requests: number;
  bytesIn: number;
  bytesOut: number;
  durationMs: number;
  at: Date;
}

export interface EgressEventQuery {
  userId?: string;
  /** Events whose skills include this one. */
  skill?: string;
  /** Exact host (lower case). */
  host?: string;
  allowed?: boolean;
  runId?: string;
  limit?: number;
  offset?: number;
}

/** Per host:port and outcome, over one run. */
export interface EgressRunSummaryRow {
  host: string;
  port: number;
  allowed: boolean;
  requests: number;
  bytesIn: number;
  bytesOut: number;
  /** The first refusal's sentence (null when allowed). */
  reason: string | null;
}

export const MAX_EGRESS_PAGE = 1000;

export async function insertEgressEvents(
  run: EgressRunRef,
  events: readonly EgressEventInput[],
  d: Database,
): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((e) => ({
    runId: run.runId,
    chatId: run.chatId,
    userId: run.userId,
    skills: JSON.stringify(e.skills),
    host: e.host,
    port: e.port,
    allowed: e.allowed,
    code: e.code ?? null,
    reason: e.reason ?? null,
    requests: e.requests,
    bytesIn: e.bytesIn,
    bytesOut: e.bytesOut,
    durationMs: e.durationMs,
    at: new Date(e.startedAt),
  }));
  await withDb(d, (db) => db.insert(d.t.egressEvents).values(rows));
}

function filter(d: Database, query: EgressEventQuery): SQL | undefined {
  const t = d.t.egressEvents;
  // `skills` is a JSON array of names: a name matches as its quoted JSON form, LIKE's wildcards escaped.
  const skillLike =
    query.skill === undefined ? undefined : `%${JSON.stringify(query.skill).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return and(
    query.userId === undefined ? undefined : eq(t.userId, query.userId),
    query.host === undefined ? undefined : eq(t.host, query.host.toLowerCase()),
    query.allowed === undefined ? undefined : eq(t.allowed, query.allowed),
    query.runId === undefined ? undefined : eq(t.runId, query.runId),
    skillLike === undefined ? undefined : sql`${t.skills} like ${skillLike} escape '\\'`,
  );
}

function parseSkills(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    return [];
  }
}

/** Events newest first, filtered, a page at a time (at most MAX_EGRESS_PAGE). */
export async function listEgressEvents(query: EgressEventQuery, d: Database): Promise<EgressEventRecord[]> {
  const limit = Math.min(Math.max(Math.trunc(query.limit ?? 100), 0), MAX_EGRESS_PAGE);
  const offset = Math.max(Math.trunc(query.offset ?? 0), 0);
  const t = d.t.egressEvents;
  const rows = await withDb(d, (db) =>
    db.select().from(t).where(filter(d, query)).orderBy(desc(t.at), desc(t.id)).limit(limit).offset(offset),
  );
  return rows.map((r) => ({ ...r, skills: parseSkills(r.skills) }));
}

/** How many events `listEgressEvents` pages through with the same filters. */
export async function countEgressEvents(query: EgressEventQuery, d: Database): Promise<number> {
  const rows = await withDb(d, (db) => db.select({ n: count() }).from(d.t.egressEvents).where(filter(d, query)));
  return Number(rows[0]?.n ?? 0);
}

/**
 * Events summed per host:port and outcome, in the order first seen, a refusal with its first sentence: the tool
 * result's and the card's lines (also used on the events a proxy still holds, server/egress/record.ts).
 */
export function summarizeEgress(
  events: Iterable<
    Pick<EgressEventInput, 'host' | 'port' | 'allowed' | 'requests' | 'bytesIn' | 'bytesOut'> & {
      reason?: string | null;
    }
  >,
): EgressRunSummaryRow[] {
  const lines = new Map<string, EgressRunSummaryRow>();
  for (const e of events) {
    const key = `${e.allowed ? 1 : 0} ${e.host} ${e.port}`;
    const line = lines.get(key);
    if (line) {
      line.requests += e.requests;
      line.bytesIn += e.bytesIn;
      line.bytesOut += e.bytesOut;
      if (line.reason === null && !e.allowed) line.reason = e.reason ?? null;
    } else {
      lines.set(key, {
        host: e.host,
        port: e.port,
        allowed: e.allowed,
        requests: e.requests,
        bytesIn: e.bytesIn,
        bytesOut: e.bytesOut,
        reason: e.allowed ? null : (e.reason ?? null),
      });
    }
  }
  return [...lines.values()];
}

/** One run's record summed per host:port and outcome (`summarizeEgress`). A run's events are few: read them all. */
export async function egressRunSummary(runId: string, d: Database): Promise<EgressRunSummaryRow[]> {
  const t = d.t.egressEvents;
  const rows = await withDb(d, (db) =>
    db
      .select({
        host: t.host,
        port: t.port,
        allowed: t.allowed,
        requests: t.requests,
        bytesIn: t.bytesIn,
        bytesOut: t.bytesOut,
        reason: t.reason,
      })
      .from(t)
      .where(eq(t.runId, runId))
      .orderBy(asc(t.id)),
  );
  return summarizeEgress(rows);
}

/** The distinct hosts and people in the record, for the filters' choices on /admin. */
export async function egressFilterChoices(d: Database): Promise<{ hosts: string[]; userIds: string[] }> {
  const t = d.t.egressEvents;
  const [hosts, users] = await Promise.all([
    withDb(d, (db) => db.selectDistinct({ host: t.host }).from(t).orderBy(asc(t.host)).limit(500)),
    withDb(d, (db) => db.selectDistinct({ userId: t.userId }).from(t).limit(500)),
  ]);
  return {
    hosts: hosts.map((r) => r.host),
    userIds: users.map((r) => r.userId).filter((u): u is string => u !== null),
  };
}
