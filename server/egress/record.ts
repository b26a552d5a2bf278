/**
 * The egress record of a run, as the proxy reports it: events are kept in memory and written in batches (at most
 * every `intervalMs`, and all at the run's end), so a burst of requests costs one insert, and the run's summary
 * (per host:port) is at hand for the tool result without a query. Also the JSON export's shape for /admin.
 */
import { type Database, type EgressEventRecord, type EgressRunRef, insertEgressEvents, summarizeEgress } from '../db';
import type { EgressEvent, EgressSummaryLine } from './types';

export const RECORD_INTERVAL_MS = 250;

export interface EgressRecorder {
  /** One connection or request; written within `intervalMs`. */
  add(event: EgressEvent): void;
  /** What was recorded so far, summed per host:port and outcome. */
  summary(): EgressSummaryLine[];
  /** Writes what is left and stops; the run's summary. Never throws: a failed write is reported to `onError`. */
  close(): Promise<EgressSummaryLine[]>;
}

export interface RecorderOptions {
  intervalMs?: number;
  /** Where a failed write goes (default: the server log, without the events). */
  onError?: (error: unknown) => void;
  /** The writer (default: `insertEgressEvents` on `d`); tests count calls through it. */
  write?: (run: EgressRunRef, events: EgressEvent[]) => Promise<void>;
}

export function createEgressRecorder(
  run: EgressRunRef,
  d: Database | null,
  options: RecorderOptions = {},
): EgressRecorder {
  const intervalMs = options.intervalMs ?? RECORD_INTERVAL_MS;
  const write = options.write ?? ((r, events) => (d ? insertEgressEvents(r, events, d) : Promise.resolve()));
  const onError =
    options.onError ??
    ((error: unknown) => console.warn(`[egress] could not record run ${run.runId}: ${(error as Error).message}`));
  let pending: EgressEvent[] = [];
  let lines: EgressSummaryLine[] = [];
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();
  let closed = false;

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = pending;
    pending = [];
    if (batch.length > 0) {
      // One write at a time, in order: a batch waits for the one before it.
      writing = writing.then(() => write(run, batch)).catch(onError);
    }
    return writing;
  };

  return {
    add(event) {
      lines = summarizeEgress([...lines.map(toRow), event]).map(toLine);
      if (closed) {
        // A late event (a connection that outlived the run's end) is still written, at once.
        pending.push(event);
        void flush();
        return;
      }
      pending.push(event);
      if (!timer) {
        timer = setTimeout(() => void flush(), intervalMs);
        timer.unref?.();
      }
    },
    summary: () => lines.map((line) => ({ ...line })),
    async close() {
      closed = true;
      await flush();
      return lines.map((line) => ({ ...line }));
    },
  };
}

function toRow(line: EgressSummaryLine) {
  return { ...line, reason: line.reason ?? null };
}

function toLine(row: ReturnType<typeof summarizeEgress>[number]): EgressSummaryLine {
  const { reason, ...rest } = row;
  return reason === null ? rest : { ...rest, reason };
}

/** One event of the JSON export: the record as stored, the person by email where known. */
/** One row of the record as the JSON export writes it: the person named, the time as ISO text. */
export type EgressExportEvent = Omit<EgressEventRecord, 'id' | 'userId' | 'at'> & { at: string; person: string | null };

export interface EgressExport {
  kind: 'skillchat-egress-record';
  version: 1;
  exportedAt: string;
  filters: { person?: string; skill?: string; host?: string; allowed?: boolean };
  events: EgressExportEvent[];
}

export function egressExport(
  records: readonly EgressEventRecord[],
  filters: EgressExport['filters'],
  options: { now?: Date; person?: (userId: string) => string | undefined } = {},
): EgressExport {
  return {
    kind: 'skillchat-egress-record',
    version: 1,
    exportedAt: (options.now ?? new Date()).toISOString(),
    filters,
    events: records.map(({ id: _id, userId, at, ...row }) => ({
      ...row,
      at: at.toISOString(),
      person: userId === null ? null : (options.person?.(userId) ?? userId),
    })),
  };
}
