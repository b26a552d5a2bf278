/**
 * Rows of `mcp_connections`: a person's OAuth connection to an MCP server, one sealed blob per person and server
 * (tokens, client registration, a sign-in under way). These are only the queries; server/mcp/oauth-store.ts seals
 * and opens.
 */
import { and, asc, eq } from 'drizzle-orm';
import { type Database, withDb } from './client';

export interface McpConnectionRecord {
  userId: string;
  /** The server's label in the config. */
  server: string;
  ciphertext: string;
  iv: string;
  tag: string;
  keyId: string;
  /** The scopes granted with the tokens, space-separated. */
  scopes: string | null;
  /** When the access token expires, if the server said. */
  expiresAt: Date | null;
  /** When the first tokens arrived; null while the first sign-in is under way. */
  connectedAt: Date | null;
  updatedAt: Date;
}

/** What is listed of a connection: never the blob. */
export type McpConnectionSummary = Omit<McpConnectionRecord, 'ciphertext' | 'iv' | 'tag'>;

export async function upsertMcpConnection(row: McpConnectionRecord, d: Database): Promise<void> {
  const t = d.t.mcpConnections;
  const { userId: _, server: __, ...set } = row;
  await withDb(d, (db) =>
    db
      .insert(t)
      .values(row)
      .onConflictDoUpdate({ target: [t.userId, t.server], set }),
  );
}

export async function getMcpConnection(
  userId: string,
  server: string,
  d: Database,
): Promise<McpConnectionRecord | null> {
  const t = d.t.mcpConnections;
  const rows = await withDb(d, (db) =>
    db
      .select()
      .from(t)
      .where(and(eq(t.userId, userId), eq(t.server, server)))
      .limit(1),
  );
  return rows[0] ?? null;
}

const SUMMARY = (t: Database['t']['mcpConnections']) => ({
  userId: t.userId,
  server: t.server,
  keyId: t.keyId,
  scopes: t.scopes,
  expiresAt: t.expiresAt,
  connectedAt: t.connectedAt,
  updatedAt: t.updatedAt,
});

/** One person's connections (userId given) or everyone's, by person and server. */
export async function listMcpConnections(userId: string | null, d: Database): Promise<McpConnectionSummary[]> {
  const t = d.t.mcpConnections;
  return withDb(d, (db) => {
    const query = db.select(SUMMARY(t)).from(t);
    return (userId === null ? query : query.where(eq(t.userId, userId))).orderBy(asc(t.userId), asc(t.server));
  });
}

/** Deletes one person's connection to one server; false when there was none. */
export async function deleteMcpConnection(userId: string, server: string, d: Database): Promise<boolean> {
  const t = d.t.mcpConnections;
  const rows = await withDb(d, (db) =>
    db
      .delete(t)
      .where(and(eq(t.userId, userId), eq(t.server, server)))
      .returning({ server: t.server }),
  );
  return rows.length > 0;
}
