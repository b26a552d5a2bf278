/**
 * Prepared statements kept per SQLite connection. drizzle's better-sqlite3 session prepares every query it runs
 * (`client.prepare(sql)` per call); a chat turn runs the same few dozen statements each time, and preparing them
 * is a large part of drizzle's cost per query. Statements are kept by their SQL
 * text, the most recently used first, up to `max`.
 *
 * A statement's modes persist (drizzle turns on `raw()` for the queries it maps itself), so a kept statement is
 * handed out with `raw`, `pluck` and `expand` off, as a fresh one would be.
 */
import type SqliteDriver from 'better-sqlite3';
import { KeptMap } from '../kept-map';

export const KEPT_STATEMENTS = 256;

export function keepStatements(client: SqliteDriver.Database, max = KEPT_STATEMENTS): void {
  const prepare = client.prepare.bind(client);
  const kept = new KeptMap<string, SqliteDriver.Statement>(max);
  const keptPrepare = (source: string) => {
    const statement = kept.get(source);
    if (!statement) {
      const fresh = prepare(source);
      kept.set(source, fresh);
      return fresh;
    }
    if (statement.reader) statement.raw(false).pluck(false).expand(false);
    return statement;
  };
  client.prepare = keptPrepare as typeof client.prepare;
}
