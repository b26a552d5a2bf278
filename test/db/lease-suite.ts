/**
 * The running-turn lease on both databases (`db.test.ts` on SQLite, `db.pg.test.ts` on a scratch PostgreSQL):
 * acquire, refuse, expire, steal after expiry, the Stop flag, and recovery that spares chats with live leases.
 */
import os from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTurnLeases } from '../../server/chat/running/leases';
import { stopChat } from '../../server/chat/turn/stop';
import { createChat } from '../../server/db/chats';
import type { Database } from '../../server/db/client';
import {
  getMessageRecords,
  saveAnswerProgress,
  saveUserMessage,
  startAssistantMessage,
} from '../../server/db/messages';
import { INTERRUPTED_TOOL_ERROR, recoverInterruptedAnswers } from '../../server/db/recovery';
import {
  acquireTurnLease,
  getTurnLease,
  heartbeatTurnLeases,
  releaseTurnLease,
  requestTurnStop,
} from '../../server/db/turn-leases';
import type { OpenedDatabase } from './db-suite';

const EXPIRY = 30_000;
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

export function describeLeases(dialect: 'sqlite' | 'pg', open: () => Promise<OpenedDatabase>): void {
  describe(`turn leases on ${dialect}`, () => {
    let opened: OpenedDatabase;
    let d: Database;
    let chatId: string;

    beforeEach(async () => {
      opened = await open();
      d = opened.d;
      chatId = (await createChat({}, d)).id;
    });

    afterEach(async () => {
      await opened.close();
    });

    const acquire = (instanceId: string, ms: number) =>
      acquireTurnLease(d, { chatId, instanceId, now: at(ms), expiryMs: EXPIRY });

    it('one instance takes the lease; another is refused while it is live', async () => {
      expect(await acquire('a', 0)).toBe(true);
      expect(await acquire('b', 1000)).toBe(false);
      // The holder itself is refused too: a second turn of the same chat is a 409 wherever it comes from.
      expect(await acquire('a', 1000)).toBe(false);
      expect((await getTurnLease(d, chatId))?.instanceId).toBe('a');
    });

    it('two instances racing for a free chat: exactly one wins', async () => {
      const results = await Promise.all(['a', 'b', 'c', 'd'].map((id) => acquire(id, 0)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('a heartbeat keeps the lease live; without one it expires and another instance takes it', async () => {
      expect(await acquire('a', 0)).toBe(true);
      const beat = await heartbeatTurnLeases(d, 'a', [chatId], at(25_000));
      expect([...beat.held]).toEqual([chatId]);
      expect(await acquire('b', 50_000)).toBe(false);
      // 30 s after the last heartbeat: the instance is dead, the chat is free.
      expect(await acquire('b', 55_001)).toBe(true);
      const lease = await getTurnLease(d, chatId);
      expect(lease).toMatchObject({ instanceId: 'b', stopRequestedAt: null });
      expect(lease?.startedAt.getTime()).toBe(at(55_001).getTime());
      // The old holder learns it lost the lease at its next heartbeat, and cannot delete the new holder's row.
      expect((await heartbeatTurnLeases(d, 'a', [chatId], at(56_000))).held.size).toBe(0);
      await releaseTurnLease(d, chatId, 'a');
      expect((await getTurnLease(d, chatId))?.instanceId).toBe('b');
      await releaseTurnLease(d, chatId, 'b');
      expect(await getTurnLease(d, chatId)).toBeNull();
      expect(await acquire('c', 57_000)).toBe(true);
    });

    it('a Stop request flags a live lease and reaches its holder at the next heartbeat', async () => {
      expect(await requestTurnStop(d, chatId, { now: at(0), expiryMs: EXPIRY })).toBeNull();
      expect(await acquire('a', 0)).toBe(true);
      expect(await requestTurnStop(d, chatId, { now: at(1000), expiryMs: EXPIRY })).toBe('a');
      const beat = await heartbeatTurnLeases(d, 'a', [chatId], at(2000));
      expect([...beat.stopRequested]).toEqual([chatId]);
      // An expired lease is not running anywhere: nothing to stop.
      expect(await requestTurnStop(d, chatId, { now: at(40_000), expiryMs: EXPIRY })).toBeNull();
    });

    it('recovery marks answers of chats without a live lease, and spares those with one', async () => {
      const live = chatId;
      const dead = (await createChat({}, d)).id;
      const none = (await createChat({}, d)).id;
      for (const id of [live, dead, none]) {
        await saveUserMessage(id, { id: `${id}-q`, role: 'user', parts: [{ type: 'text', text: 'hi' }] }, d);
        await startAssistantMessage(id, `${id}-a`, {}, d);
      }
      const now = Date.now();
      expect(await acquireTurnLease(d, { chatId: live, instanceId: 'a', now: new Date(now), expiryMs: EXPIRY })).toBe(
        true,
      );
      expect(
        await acquireTurnLease(d, { chatId: dead, instanceId: 'b', now: new Date(now - 60_000), expiryMs: EXPIRY }),
      ).toBe(true);
      expect((await recoverInterruptedAnswers(d, { now: new Date(now), expiryMs: EXPIRY })).interrupted).toBe(2);
      const status = async (id: string) => (await getMessageRecords(id, d)).at(-1)?.status;
      expect(await status(live)).toBe('streaming');
      expect(await status(dead)).toBe('interrupted');
      expect(await status(none)).toBe('interrupted');
    });

    it('recovery ends the tool calls of an interrupted answer that were still running, and keeps finished ones', async () => {
      await saveUserMessage(chatId, { id: 'q', role: 'user', parts: [{ type: 'text', text: 'hi' }] }, d);
      await startAssistantMessage(chatId, 'a', {}, d);
      const call = { toolName: 'mcp_local_echo', input: { text: 'x' } };
      const parts = [
        { type: 'text', text: 'Running it.' },
        { type: 'dynamic-tool', toolCallId: 'done', state: 'output-available', output: 'ok', ...call },
        { type: 'dynamic-tool', toolCallId: 'running', state: 'input-available', ...call },
        {
          type: 'tool-shell',
          toolCallId: 'partial',
          state: 'output-available',
          input: {},
          output: {},
          preliminary: true,
        },
        { type: 'tool-shell', toolCallId: 'asked', state: 'approval-requested', input: {}, approval: { id: 'p' } },
      ];
      expect(await saveAnswerProgress('a', parts as never, d)).toBe(true);
      expect((await recoverInterruptedAnswers(d, { expiryMs: EXPIRY })).interrupted).toBe(1);
      const stored = (await getMessageRecords(chatId, d)).at(-1)!;
      expect(stored.status).toBe('interrupted');
      const states = stored.message.parts.map((p) => [
        (p as { toolCallId?: string }).toolCallId,
        (p as { state?: string }).state,
      ]);
      expect(states).toEqual([
        [undefined, undefined],
        ['done', 'output-available'],
        ['running', 'output-error'],
        ['partial', 'output-error'],
        ['asked', 'approval-requested'],
      ]);
      expect(stored.message.parts[2]).toMatchObject({ errorText: INTERRUPTED_TOOL_ERROR, input: { text: 'x' } });
    });

    it("a restarted process drops the leases of this host's dead processes, not live ones", async () => {
      const host = os.hostname();
      const deadPid = 2 ** 22 + 12_345; // above Linux's pid_max: never a running process
      expect(await acquire(`${host}:${deadPid}:x`, Date.now())).toBe(true);
      const other = (await createChat({}, d)).id;
      const live = `${host}:${process.ppid}:y`;
      expect(await acquireTurnLease(d, { chatId: other, instanceId: live, expiryMs: EXPIRY })).toBe(true);
      expect((await recoverInterruptedAnswers(d, { instanceId: 'me', expiryMs: EXPIRY })).leasesDropped).toBe(1);
      expect(await getTurnLease(d, chatId)).toBeNull();
      expect((await getTurnLease(d, other))?.instanceId).toBe(live);
    });

    it('the coordinator: a second acquire is refused, a remote Stop aborts the local turn at the tick', async () => {
      const timings = { heartbeatMs: 60_000, expiryMs: EXPIRY };
      const here = createTurnLeases(d, { instanceId: 'here', timings });
      const there = createTurnLeases(d, { instanceId: 'there', timings });
      try {
        let aborted = 0;
        expect(await here.acquire(chatId, () => aborted++)).toBe(true);
        expect(await there.acquire(chatId, () => {})).toBe(false);
        expect(await there.requestStop(chatId)).toBe(true);
        await here.tick();
        expect(aborted).toBe(1);
        await here.release(chatId);
        expect(await there.acquire(chatId, () => {})).toBe(true);
        await there.release(chatId);
        expect(await there.requestStop(chatId)).toBe(false);
      } finally {
        await here.close();
        await there.close();
      }
    });

    it('deleting a chat answering on another instance stops it there, and waits until that instance let it go', async () => {
      const timings = { heartbeatMs: 60_000, expiryMs: EXPIRY };
      const here = createTurnLeases(d, { instanceId: 'here', timings });
      const there = createTurnLeases(d, { instanceId: 'there', timings });
      try {
        let aborted = false;
        // The turn on the other instance ends when aborted: its answer is stored, its lease released.
        expect(
          await there.acquire(chatId, () => {
            aborted = true;
            void there.release(chatId);
          }),
        ).toBe(true);
        let returned = false;
        // What DELETE /api/chats/:id does before deleting (app/api/chats/[id]/route.ts).
        const stopping = stopChat(chatId, { leases: here, wait: true }).then((outcome) => {
          returned = true;
          return outcome;
        });
        while (!aborted) {
          await there.tick();
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(await stopping).toBe('elsewhere');
        expect(returned).toBe(true);
        expect(await getTurnLease(d, chatId)).toBeNull();
      } finally {
        await here.close();
        await there.close();
      }
    });

    it.runIf(dialect === 'pg')(
      'on PostgreSQL a Stop reaches the holder at once through NOTIFY, with no tick',
      async () => {
        const timings = { heartbeatMs: 600_000, expiryMs: 1_200_000 };
        const here = createTurnLeases(d, { instanceId: 'here', timings });
        const there = createTurnLeases(d, { instanceId: 'there', timings });
        try {
          await here.start();
          let abort!: () => void;
          const aborted = new Promise<void>((resolve) => {
            abort = resolve;
          });
          expect(await here.acquire(chatId, abort)).toBe(true);
          expect(await there.requestStop(chatId)).toBe(true);
          await aborted;
        } finally {
          await here.close();
          await there.close();
        }
      },
    );
  });
}
