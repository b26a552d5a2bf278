/**
 * A turn's writes on both databases (`db.test.ts` on SQLite, `db.pg.test.ts` on a scratch PostgreSQL): the lease,
 * the person's message with the answer's start and the title (one transaction), the answer's end with the lease's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDbChatStore } from '../../server/chat/db-store';
import type { ChatStore } from '../../server/chat/store';
import { createRunningTurns, runChatTurn, stopChat, type TurnDeps } from '../../server/chat/turn';
import type { ChatMessage } from '../../server/chat/wire-types';
import { DEFAULT_CHAT_TITLE } from '../../server/db/chats';
import type { Database } from '../../server/db/client';
import { getMessageRecords } from '../../server/db/messages';
import { acquireTurnLease, getTurnLease, releaseTurnLease } from '../../server/db/turn-leases';
import { offlineTurnDeps } from '../turn-deps';
import type { OpenedDatabase } from './db-suite';

export function describeTurnWrites(dialect: 'sqlite' | 'pg', open: () => Promise<OpenedDatabase>): void {
  describe(`a turn's writes on ${dialect}`, () => {
    let tmp: string;
    let opened: OpenedDatabase;
    let d: Database;
    let store: ChatStore;

    beforeAll(() => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-turn-writes-'));
    });
    afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
    beforeEach(async () => {
      opened = await open();
      d = opened.d;
      store = createDbChatStore(d);
    });
    afterEach(async () => {
      await opened.close();
    });

    const turns = createRunningTurns();
    const deps = (chunkDelayMs = 0): TurnDeps => offlineTurnDeps(store, tmp, chunkDelayMs, turns);
    const message = (id: string, text = 'Hello there'): ChatMessage => ({
      id,
      role: 'user',
      parts: [{ type: 'text', text }],
    });
    const statuses = async (chatId: string) => (await getMessageRecords(chatId, d)).map((r) => r.status);

    it('a new message: the message, the title and the answer stored; the lease held while it ran, gone after', async () => {
      await store.createChat({ id: 'c' });
      const response = await runChatTurn({ chatId: 'c', trigger: 'submit-message', message: message('u1') }, deps(40));
      // Started: the message, the title and the `streaming` row in one commit, the answer recorded on the lease.
      const [, answer] = await getMessageRecords('c', d);
      expect(answer?.status).toBe('streaming');
      expect((await store.getChat('c'))?.title).toBe('Hello there');
      expect(await getTurnLease(d, 'c')).toMatchObject({
        instanceId: store.leases!.instanceId,
        messageId: answer!.message.id,
      });
      expect(await stopChat('c', { turns, leases: store.leases })).toBe('stopped');
      await response.text();
      expect(await statuses('c')).toEqual(['complete', 'aborted']);
      expect(await getTurnLease(d, 'c')).toBeNull();
      // The chat is free again, here and on any instance.
      await (await runChatTurn({ chatId: 'c', trigger: 'submit-message', message: message('u2') }, deps())).text();
      await turns.wait('c');
      expect(await statuses('c')).toEqual(['complete', 'aborted', 'complete', 'complete']);
      expect(await getTurnLease(d, 'c')).toBeNull();
    });

    it("a live lease of another instance is a 409, and the turn's start writes nothing", async () => {
      await store.createChat({ id: 'c' });
      expect(await acquireTurnLease(d, { chatId: 'c', instanceId: 'other', expiryMs: 30_000 })).toBe(true);
      await expect(
        runChatTurn({ chatId: 'c', trigger: 'submit-message', message: message('u1') }, deps()),
      ).rejects.toMatchObject({ status: 409 });
      expect(await statuses('c')).toEqual([]);
      expect((await store.getChat('c'))?.title).toBe(DEFAULT_CHAT_TITLE);
      expect(await releaseTurnLease(d, 'c', 'other')).toBe(true);
    });

    it('a transaction that fails keeps none of its writes: not the lease, not the message, not the title', async () => {
      await store.createChat({ id: 'c' });
      let aborted = 0;
      await expect(
        store.transaction(async (tx) => {
          expect(await tx.takeLease('c', () => aborted++)).toBe(true);
          await tx.saveUserMessage('c', message('u1'));
          await tx.setTitleFromFirstMessage('c', 'Hello there');
          await tx.startAssistantMessage('c', 'u1'); // the person's message's id: a conflict
        }),
      ).rejects.toThrow(/user message/);
      expect(await statuses('c')).toEqual([]);
      expect((await store.getChat('c'))?.title).toBe(DEFAULT_CHAT_TITLE);
      expect(await getTurnLease(d, 'c')).toBeNull();
      // Never watched (it was never committed): the heartbeat does not take the chat for a lost lease of this turn.
      await store.leases!.tick();
      expect(aborted).toBe(0);
    });
  });
}
