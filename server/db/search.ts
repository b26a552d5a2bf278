/**
 * Chat search over the FTS5 tables of migration 0004 (kept in step by triggers): titles and the text of messages.
 * The person's words become prefix terms, all required (`"commit"* "typo"*`), so FTS syntax typed into the box is
 * never interpreted and never fails.
 */
import { inArray, sql } from 'drizzle-orm';
import type { Chat } from './chats';
import type { Db } from './client';
import { chats } from './schema';

export interface ChatSearchHit {
  chat: Chat;
  /** Words around the match in the latest matching message; absent when only the title matched. */
  snippet?: string;
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
}

/** Matching chats, most recently active first. */
export function searchChats(text: string, options: { limit?: number } = {}, db: Db): ChatSearchHit[] {
  const query = ftsQuery(text);
  if (query === null) return [];
  const limit = options.limit ?? 50;
  const rows = db.all<Row>(sql`
    WITH hits AS (
      SELECT c.id AS id, NULL AS snippet, 0 AS seq
        FROM chat_title_search t JOIN chats c ON c.rowid = t.rowid
        WHERE chat_title_search MATCH ${query}
      UNION ALL
      SELECT m.chat_id, snippet(message_search, 0, '', '', '…', 12), m.seq
        FROM message_search s JOIN messages m ON m.rowid = s.rowid
        WHERE message_search MATCH ${query}
    ),
    best AS (SELECT id, snippet, max(seq) FROM hits GROUP BY id)
    SELECT best.id, best.snippet FROM best JOIN chats c ON c.id = best.id
    ORDER BY c.updated_at DESC, c.created_at DESC, c.id DESC
    LIMIT ${limit}`);
  if (rows.length === 0) return [];
  const byId = new Map(
    db
      .select()
      .from(chats)
      .where(
        inArray(
          chats.id,
          rows.map((r) => r.id),
        ),
      )
      .all()
      .map((c) => [c.id, c]),
  );
  return rows.flatMap((row) => {
    const chat = byId.get(row.id);
    return chat ? [{ chat, ...(row.snippet ? { snippet: row.snippet } : {}) }] : [];
  });
}
