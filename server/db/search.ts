/**
 * Chat search over the FTS5 tables of migration 0004 (kept in step by triggers): titles and the text of messages.
 * The person's words become prefix terms, all required (`"commit"* "typo"*`), so FTS syntax typed into the box is
 * never interpreted and never fails.
 */
import { inArray, sql } from 'drizzle-orm';
import type { Chat } from './chats';
import { type Database, rawAll, withDb } from './client';

export interface ChatSearchHit {
  chat: Chat;
  /** Words around the match in the latest matching message; absent when only the title matched. */
  snippet?: string;
  /** That message (the hit opens the chat at it). */
  messageId?: string;
}

/** Terms beyond this are ignored: a search box, not a document. */
const MAX_TERMS = 8;

/** `"word"*` for each word (letters and digits), or null when the text has none. */
export function ftsQuery(text: string): string | null {
  const words = text.match(/[\p{L}\p{N}]+/gu)?.slice(0, MAX_TERMS) ?? [];
  if (words.length === 0) return null;
  return words.map((w) => `"${w}"*`).join(' ');
}

interface Row {
  id: string;
  snippet: string | null;
  message_id: string | null;
}

/** `word:*` terms joined by `&` for PostgreSQL's `to_tsquery('simple', ...)`, or null when the text has none. */
export function tsQuery(text: string): string | null {
  const words = text.match(/[\p{L}\p{N}]+/gu)?.slice(0, MAX_TERMS) ?? [];
  if (words.length === 0) return null;
  return words.map((w) => `'${w.toLowerCase()}':*`).join(' & ');
}

/**
 * Matching chats, most recently active first (only `userId`'s when given). SQLite: the FTS5 tables of migration
 * drizzle/0006_chat_search.sql; PostgreSQL: the tsvector column and title index of drizzle-pg/0003_chat_search.sql
 * (prefix terms, all required).
 */
export async function searchChats(
  text: string,
  options: { limit?: number; userId?: string },
  d: Database,
): Promise<ChatSearchHit[]> {
  const limit = options.limit ?? 50;
  const owner = options.userId === undefined ? sql`` : sql` AND c.user_id = ${options.userId}`;
  let rows: Row[];
  if (d.dialect === 'pg') {
    const query = tsQuery(text);
    if (query === null) return [];
    rows = await rawAll<Row>(
      d,
      sql`
      WITH q AS (SELECT to_tsquery('simple', ${query}) AS q),
      hits AS (
        SELECT c.id AS id, NULL::text AS snippet, NULL::text AS message_id, 0 AS seq
          FROM chats c, q WHERE to_tsvector('simple', c.title) @@ q.q${owner}
        UNION ALL
        SELECT m.chat_id, ts_headline('simple', coalesce(skillchat_parts_text(m.parts), ''), q.q,
                 'StartSel="",StopSel="",MaxWords=12,MinWords=4,ShortWord=0'), m.id, m.seq
          FROM messages m JOIN chats c ON c.id = m.chat_id, q WHERE m.search @@ q.q${owner}
      ),
      best AS (SELECT DISTINCT ON (id) id, snippet, message_id FROM hits ORDER BY id, seq DESC)
      SELECT best.id, best.snippet, best.message_id FROM best JOIN chats c ON c.id = best.id
      ORDER BY c.updated_at DESC, c.created_at DESC, c.id DESC
      LIMIT ${limit}`,
    );
  } else {
    const query = ftsQuery(text);
    if (query === null) return [];
    rows = await rawAll<Row>(
      d,
      sql`
      WITH hits AS (
        SELECT c.id AS id, NULL AS snippet, NULL AS message_id, 0 AS seq
          FROM chat_title_search t JOIN chats c ON c.rowid = t.rowid
          WHERE chat_title_search MATCH ${query}${owner}
        UNION ALL
        SELECT m.chat_id, snippet(message_search, 0, '', '', '…', 12), m.id, m.seq
          FROM message_search s JOIN messages m ON m.rowid = s.rowid JOIN chats c ON c.id = m.chat_id
          WHERE message_search MATCH ${query}${owner}
      ),
      best AS (SELECT id, snippet, message_id, max(seq) FROM hits GROUP BY id)
      SELECT best.id, best.snippet, best.message_id FROM best JOIN chats c ON c.id = best.id
      ORDER BY c.updated_at DESC, c.created_at DESC, c.id DESC
      LIMIT ${limit}`,
    );
  }
  if (rows.length === 0) return [];
  const { chats } = d.t;
  const found = await withDb(d, (db) =>
    db
      .select()
      .from(chats)
      .where(
        inArray(
          chats.id,
          rows.map((r) => r.id),
        ),
      ),
  );
  const byId = new Map(found.map((c) => [c.id, c]));
  return rows.flatMap((row) => {
    const chat = byId.get(row.id);
    if (!chat) return [];
    return [
      {
        chat,
        ...(row.snippet ? { snippet: row.snippet } : {}),
        ...(row.message_id ? { messageId: row.message_id } : {}),
      },
    ];
  });
}
