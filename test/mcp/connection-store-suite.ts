/** The MCP connection store's behaviour, run on SQLite (server/mcp/oauth-store.test.ts) and PostgreSQL (.pg.test.ts). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/client';
import { createMcpConnectionStore, type McpConnectionStore } from '../../server/mcp/oauth-store';
import { deriveSecretsKey } from '../../server/secrets/crypto';

const TOKEN = 'at_the-access-token-itself';
const REFRESH = 'rt_the-refresh-token-itself';

export function describeMcpConnectionStore(dialect: string, open: () => Promise<{ d: Database; close(): void }>) {
  describe(`MCP connection store (${dialect})`, () => {
    let d: Database;
    let close: () => void;
    let store: McpConnectionStore;
    beforeEach(async () => {
      ({ d, close } = await open());
      store = createMcpConnectionStore(d, () => deriveSecretsKey('an auth secret of thirty-two characters!'));
    });
    afterEach(() => close());

    it('keeps a sign-in under way, then the tokens, sealed; lists scopes and expiry, never a token', async () => {
      await store.update('alice', 'notes', (b) => ({ ...b, pending: { verifier: 'v', state: 's', expiresAt: 1 } }));
      expect(await store.list('alice')).toEqual([
        expect.objectContaining({ server: 'notes', connected: false, connectedAt: null }),
      ]);
      await store.update('alice', 'notes', ({ pending: _, ...b }) => ({
        ...b,
        tokens: { access_token: TOKEN, refresh_token: REFRESH, token_type: 'Bearer', expires_in: 60, scope: 'a b' },
        tokensAt: Date.now(),
      }));
      const [row] = await store.list('alice');
      expect(row).toMatchObject({
        userId: 'alice',
        server: 'notes',
        connected: true,
        scopes: ['a', 'b'],
        readable: true,
      });
      expect(row!.expiresAt!.getTime()).toBeGreaterThan(Date.now());
      expect(JSON.stringify(await store.list(null))).not.toContain(TOKEN);
      expect((await store.read('alice', 'notes'))?.tokens?.access_token).toBe(TOKEN);
      // At rest only ciphertext.
      const raw = await d.db.select().from(d.t.mcpConnections);
      expect(JSON.stringify(raw)).not.toContain(TOKEN);
      expect(JSON.stringify(raw)).not.toContain(REFRESH);
    });

    it("is one person's: another person has none, and a row moved to them opens as none", async () => {
      await store.update('alice', 'notes', () => ({ tokens: { access_token: TOKEN, token_type: 'Bearer' } }));
      expect(await store.read('bob', 'notes')).toBeNull();
      expect(await store.list('bob')).toEqual([]);
      await d.db.update(d.t.mcpConnections).set({ userId: 'bob' });
      // It is sealed to alice: bob gets no connection, not her tokens.
      expect(await store.read('bob', 'notes')).toBeNull();
    });

    it('forgets a connection', async () => {
      await store.update('alice', 'notes', () => ({ tokens: { access_token: TOKEN, token_type: 'Bearer' } }));
      expect(await store.remove('alice', 'notes')).toBe(true);
      expect(await store.remove('alice', 'notes')).toBe(false);
      expect(await store.read('alice', 'notes')).toBeNull();
    });

    it('reads a row sealed under another key as no connection (connect again)', async () => {
      await store.update('alice', 'notes', () => ({ tokens: { access_token: TOKEN, token_type: 'Bearer' } }));
      const other = createMcpConnectionStore(d, () => deriveSecretsKey('another auth secret of thirty-two chars!!'));
      expect(await other.read('alice', 'notes')).toBeNull();
      expect(await other.list('alice')).toEqual([expect.objectContaining({ readable: false })]);
    });
  });
}
