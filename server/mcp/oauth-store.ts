/**
 * Each person's OAuth connections to MCP servers, at rest: one row of `mcp_connections` per person and server whose
 * blob (tokens, the client registration, the discovery state, and while a sign-in is under way the PKCE verifier and
 * the state) is sealed like a secret (server/secrets/crypto.ts; additional data `<person>\0mcp:<label>`, so a blob
 * moved to another person or server does not open). Listing gives times and scopes, never a token.
 */
import type {
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import {
  type Database,
  deleteMcpConnection,
  getMcpConnection,
  listMcpConnections,
  type McpConnectionSummary,
  upsertMcpConnection,
} from '../db';
import { openSecret, SecretKeyError, type SecretsKey, sealSecret } from '../secrets/crypto';

/** What one sealed blob holds. */
export interface McpConnectionBlob {
  tokens?: StoredOAuthTokens;
  /** When `tokens` were saved (ms), so `expires_in` can be read as a time. */
  tokensAt?: number;
  client?: StoredOAuthClientInformation;
  /** The redirect URL the client was registered and the sign-in started with. */
  redirectUrl?: string;
  discovery?: OAuthDiscoveryState;
  /** The scope last asked for at the authorization server (a step-up's union of granted and challenged scopes). */
  scope?: string;
  /** A sign-in under way: the PKCE verifier, the state sent, when it lapses, and the page to return to. */
  pending?: { verifier?: string; state?: string; expiresAt: number; returnTo?: string };
}

export interface McpConnectionInfo {
  userId: string;
  server: string;
  /** true once tokens are stored (a sign-in that never finished is not a connection). */
  connected: boolean;
  scopes: string[];
  expiresAt: Date | null;
  connectedAt: Date | null;
  /** false when the row was sealed under another key (the auth secret changed): connect again. */
  readable: boolean;
}

export interface McpConnectionStore {
  read(userId: string, server: string): Promise<McpConnectionBlob | null>;
  /** Read, change, write one blob (a missing one starts empty); returns what was written. */
  update(
    userId: string,
    server: string,
    change: (blob: McpConnectionBlob) => McpConnectionBlob,
  ): Promise<McpConnectionBlob>;
  /** One person's connections, or everyone's (null). */
  list(userId: string | null): Promise<McpConnectionInfo[]>;
  remove(userId: string, server: string): Promise<boolean>;
}

const slot = (userId: string, server: string) => {
  if (!userId) throw new Error('an MCP connection belongs to a person with a non-empty id');
  return { name: `mcp:${server}`, ownerId: userId };
};

function expiry(blob: McpConnectionBlob): Date | null {
  const seconds = blob.tokens?.expires_in;
  return typeof seconds === 'number' && blob.tokensAt ? new Date(blob.tokensAt + seconds * 1000) : null;
}

function info(row: McpConnectionSummary, keyId: string): McpConnectionInfo {
  return {
    userId: row.userId,
    server: row.server,
    connected: row.connectedAt !== null,
    scopes: row.scopes ? row.scopes.split(' ').filter(Boolean) : [],
    expiresAt: row.expiresAt,
    connectedAt: row.connectedAt,
    readable: row.keyId === keyId,
  };
}

/** `key` is read on first use, like the secret store's. */
export function createMcpConnectionStore(db: Database, key: () => SecretsKey): McpConnectionStore {
  let loaded: SecretsKey | undefined;
  const theKey = () => {
    loaded ??= key();
    return loaded;
  };
  // A row sealed under another key (the auth secret changed) reads as no connection: the person connects again.
  const open = (userId: string, server: string, row: Parameters<typeof openSecret>[2]): McpConnectionBlob | null => {
    try {
      return JSON.parse(openSecret(theKey(), slot(userId, server), row)) as McpConnectionBlob;
    } catch (error) {
      if (error instanceof SecretKeyError) return null;
      throw error;
    }
  };
  const read = async (userId: string, server: string) => {
    const row = await getMcpConnection(userId, server, db);
    return row ? open(userId, server, row) : null;
  };
  return {
    read,
    async update(userId, server, change) {
      const before = await getMcpConnection(userId, server, db);
      const current = before ? open(userId, server, before) : null;
      const next = change(current ?? {});
      const now = new Date();
      await upsertMcpConnection(
        {
          userId,
          server,
          ...sealSecret(theKey(), slot(userId, server), JSON.stringify(next)),
          scopes: next.tokens?.scope ?? null,
          expiresAt: expiry(next),
          connectedAt: next.tokens ? (current ? (before?.connectedAt ?? now) : now) : null,
          updatedAt: now,
        },
        db,
      );
      return next;
    },
    async list(userId) {
      const rows = await listMcpConnections(userId, db);
      const keyId = theKey().id;
      return rows.map((r) => info(r, keyId));
    },
    remove: (userId, server) => deleteMcpConnection(userId, server, db),
  };
}
