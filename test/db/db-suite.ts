/**
 * The query layer's behaviour on both databases: `db.test.ts` runs it on SQLite, `db.pg.test.ts` on a scratch
 * PostgreSQL (like test/auth/auth-suite.ts). `open` gives a fresh, migrated, empty database for each test.
 */
import type { UIMessage } from 'ai';
import { count as countAll, eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDbChatStore } from '../../server/chat/db-store';
import {
  activationCountsBySkill,
  countActivationEvents,
  getChatActivations,
  listActivationEvents,
  recordActivation,
  USAGE_KEPT_MS,
  usageByUser,
  usageCounts,
} from '../../server/db/activations';
import {
  chatExists,
  countChats,
  createChat,
  DEFAULT_CHAT_TITLE,
  deleteChat,
  deleteUserData,
  ensureChat,
  getChat,
  listChats,
  renameChat,
  setChatModel,
  touchChat,
  transferUserData,
} from '../../server/db/chats';
import type { Database } from '../../server/db/client';
import { DbError } from '../../server/db/errors';
import { LOCAL_USER_ID } from '../../server/db/local-user';
import {
  deleteMessagesAfter,
  finishAssistantMessage,
  getMessagePage,
  getMessageRecords,
  getMessages,
  replacePartsIfUnchanged,
  saveMessage,
  saveUserMessage,
  startAssistantMessage,
} from '../../server/db/messages';
import { addGrant, listGrants, listScriptRuns, recordDecision, recordScriptRun } from '../../server/db/permissions';
import { searchChats } from '../../server/db/search';
import { listModeOverrides, setModeOverride } from '../../server/db/skill-modes';
import { listDisabledSkills, setSkillDisabled } from '../../server/db/skill-prefs';
import { addTriggerCheck, listTriggerChecks } from '../../server/db/trigger-checks';
import { listVersionGroups, replaceTail, switchVersion } from '../../server/db/versions';
import { until } from '../until';

export interface OpenedDatabase {
  d: Database;
  close(): Promise<void> | void;
}

const t = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

function userMessage(id: string, text: string): UIMessage {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

async function countRows(d: Database, table: 'messages' | 'activations' | 'activationEvents'): Promise<number> {
  const [row] = await d.db.select({ n: countAll() }).from(d.t[table]);
  return Number(row?.n ?? 0);
}

export function describeDb(dialect: 'sqlite' | 'pg', open: () => Promise<OpenedDatabase>): void {
  describe(`queries on ${dialect}`, () => {
    let opened: OpenedDatabase;
    let d: Database;

    beforeEach(async () => {
      opened = await open();
      d = opened.d;
    });

    afterEach(async () => {
      await opened.close();
    });

    describe('chats', () => {
      it('creates with a generated id and the default title', async () => {
        const chat = await createChat({}, d);
        expect(chat.id).toMatch(/^[0-9a-f-]{36}$/);
        expect(chat.title).toBe(DEFAULT_CHAT_TITLE);
        expect(chat.createdAt).toBeInstanceOf(Date);
        expect(await getChat(chat.id, d)).toEqual(chat);
        expect(await getChat('missing', d)).toBeNull();
      });

      it('refuses a taken id, while ensureChat returns the existing chat', async () => {
        await createChat({ id: 'c1', title: 'First' }, d);
        await expect(createChat({ id: 'c1' }, d)).rejects.toThrow(DbError);
        expect(await ensureChat({ id: 'c1', title: 'Other' }, d)).toMatchObject({
          created: false,
          chat: { title: 'First' },
        });
        expect(await ensureChat({ id: 'c2', title: 'Second' }, d)).toMatchObject({
          created: true,
          chat: { title: 'Second' },
        });
      });

      it('lists the most recently active first', async () => {
        await createChat({ id: 'old', at: t(0) }, d);
        await createChat({ id: 'mid', at: t(1000) }, d);
        await createChat({ id: 'new', at: t(2000) }, d);
        expect((await listChats({}, d)).map((c) => c.id)).toEqual(['new', 'mid', 'old']);
        await touchChat('old', t(3000), d);
        expect((await listChats({}, d)).map((c) => c.id)).toEqual(['old', 'new', 'mid']);
        expect((await listChats({ limit: 1 }, d)).map((c) => c.id)).toEqual(['old']);
        // A new message is activity too.
        await saveUserMessage('mid', userMessage('u1', 'hi'), d);
        expect((await listChats({}, d))[0]?.id).toBe('mid');
      });

      it('renames without moving the chat up the list', async () => {
        await createChat({ id: 'a', at: t(0) }, d);
        await createChat({ id: 'b', at: t(1000) }, d);
        const renamed = await renameChat('a', '  Quarterly   report \n', d);
        expect(renamed?.title).toBe('Quarterly report');
        expect(renamed?.updatedAt).toEqual(t(0));
        expect((await listChats({}, d)).map((c) => c.id)).toEqual(['b', 'a']);
        expect((await renameChat('a', '   ', d))?.title).toBe(DEFAULT_CHAT_TITLE);
        expect(await renameChat('missing', 'x', d)).toBeNull();
      });

      it('deleting a chat cascades to its messages and activations', async () => {
        await createChat({ id: 'gone' }, d);
        await createChat({ id: 'kept' }, d);
        for (const id of ['gone', 'kept']) {
          await saveUserMessage(id, userMessage(`${id}-u`, 'hello'), d);
          await startAssistantMessage(id, `${id}-a`, {}, d);
          await recordActivation(id, 'pdf', 'model', new Date(), d);
        }
        expect(await deleteChat('gone', d)).toBe(true);
        expect(await deleteChat('gone', d)).toBe(false);
        const count = (table: 'messages' | 'activations' | 'activationEvents') => countRows(d, table);
        expect(await count('messages')).toBe(2);
        expect(await count('activations')).toBe(1);
        expect(await count('activationEvents')).toBe(1);
        expect(await getMessages('kept', d)).toHaveLength(2);
      });
    });

    describe('messages', () => {
      beforeEach(async () => {
        await createChat({ id: 'c' }, d);
      });

      it('round-trips parts exactly, tool parts with input and output included', async () => {
        const assistant: UIMessage = {
          id: 'a1',
          role: 'assistant',
          metadata: { model: 'Offline model (built-in)', createdAt: 1767225600000 },
          parts: [
            { type: 'step-start' },
            { type: 'reasoning', text: 'The person wants a PDF skill.', state: 'done' },
            {
              type: 'tool-skills_activate',
              toolCallId: 'call_1',
              state: 'output-available',
              input: { name: 'pdf' },
              output: {
                name: 'pdf',
                instructions: '# PDF\n\nUse `pdftotext`.\n',
                resources: ['scripts/extract.py', 'ünïcødé ✓.md'],
                truncated: false,
                nested: { list: [1, 2.5, null, true], empty: {} },
              },
            },
            {
              type: 'tool-skills_readResource',
              toolCallId: 'call_2',
              state: 'output-error',
              input: { name: 'pdf', path: '../etc/passwd' },
              errorText: 'Path escapes the skill folder',
            },
            { type: 'text', text: 'Done. "Quotes", \\backslashes\\ and \u2028 survive.', state: 'done' },
            { type: 'data-activations', data: { names: ['pdf'] } },
          ],
        };
        await saveUserMessage('c', userMessage('u1', 'Use the pdf skill'), d);
        await startAssistantMessage('c', 'a1', {}, d);
        await finishAssistantMessage(
          'a1',
          { parts: assistant.parts, status: 'complete', metadata: assistant.metadata },
          d,
        );
        expect(await getMessages('c', d)).toEqual([userMessage('u1', 'Use the pdf skill'), assistant]);
      });

      it('accepts an app-specific message type', async () => {
        type Typed = UIMessage<
          { model?: string },
          { activations: { names: string[] } },
          { t: { input: { a: 1 }; output: string } }
        >;
        const message: Typed = {
          id: 'u1',
          role: 'user',
          parts: [{ type: 'text', text: 'hi' }],
          metadata: { model: 'm' },
        };
        await saveUserMessage('c', message, d);
        const [loaded] = await getMessages<Typed>('c', d);
        expect(loaded?.metadata?.model).toBe('m');
      });

      it('reads a page next to a cursor, oldest first, saying what lies beyond (issue 26)', async () => {
        for (let i = 1; i <= 7; i++) await saveUserMessage('c', userMessage(`p${i}`, `message ${i}`), d);
        await createChat({ id: 'other' }, d);
        await saveUserMessage('other', userMessage('elsewhere', 'not here'), d);
        const ids = async (cursor: Parameters<typeof getMessagePage>[1], limit: number) => {
          const page = await getMessagePage('c', cursor, limit, d);
          return page && { ids: page.records.map((r) => r.message.id), earlier: page.hasEarlier, later: page.hasLater };
        };
        expect(await ids({ kind: 'last' }, 3)).toEqual({ ids: ['p5', 'p6', 'p7'], earlier: true, later: false });
        expect(await ids({ kind: 'before', id: 'p5' }, 3)).toEqual({
          ids: ['p2', 'p3', 'p4'],
          earlier: true,
          later: true,
        });
        expect(await ids({ kind: 'before', id: 'p3' }, 3)).toEqual({ ids: ['p1', 'p2'], earlier: false, later: true });
        expect(await ids({ kind: 'before', id: 'p1' }, 3)).toEqual({ ids: [], earlier: false, later: true });
        expect(await ids({ kind: 'after', id: 'p2' }, 2)).toEqual({ ids: ['p3', 'p4'], earlier: true, later: true });
        expect(await ids({ kind: 'after', id: 'p6' }, 5)).toEqual({ ids: ['p7'], earlier: true, later: false });
        expect(await ids({ kind: 'after', id: 'p7' }, 5)).toEqual({ ids: [], earlier: true, later: false });
        expect(await ids({ kind: 'after', id: '' }, 2)).toEqual({ ids: ['p1', 'p2'], earlier: false, later: true });
        expect(await ids({ kind: 'from', id: 'p4' }, 2)).toEqual({ ids: ['p4', 'p5'], earlier: true, later: true });
        expect(await ids({ kind: 'last' }, 50)).toEqual({
          ids: ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7'],
          earlier: false,
          later: false,
        });
        // A cursor of another chat, or of none, is not a position in this one.
        expect(await ids({ kind: 'before', id: 'elsewhere' }, 3)).toBeNull();
        expect(await ids({ kind: 'from', id: 'nope' }, 3)).toBeNull();
        expect(await getMessagePage('empty', { kind: 'last' }, 3, d)).toEqual({
          records: [],
          hasEarlier: false,
          hasLater: false,
        });
      });

      it('keeps insertion order even when timestamps tie or go backwards', async () => {
        await saveUserMessage('c', userMessage('m1', 'one'), d);
        await saveMessage('c', userMessage('m2', 'two'), { at: t(0) }, d);
        await saveMessage('c', userMessage('m3', 'three'), { at: t(0) }, d);
        expect((await getMessages('c', d)).map((m) => m.id)).toEqual(['m1', 'm2', 'm3']);
      });

      it('replaces a message with the same id in place', async () => {
        await saveUserMessage('c', userMessage('m1', 'one'), d);
        await saveUserMessage('c', userMessage('m2', 'two'), d);
        await saveUserMessage('c', userMessage('m1', 'one, edited'), d);
        expect(await getMessages('c', d)).toEqual([userMessage('m1', 'one, edited'), userMessage('m2', 'two')]);
      });

      it('refuses ids of another chat, unknown chats and non-user messages', async () => {
        await createChat({ id: 'other' }, d);
        await saveUserMessage('other', userMessage('m1', 'theirs'), d);
        await expect(saveUserMessage('c', userMessage('m1', 'mine'), d)).rejects.toThrow(
          expect.objectContaining({ code: 'message-conflict' }),
        );
        await expect(saveUserMessage('nope', userMessage('m9', 'x'), d)).rejects.toThrow(
          expect.objectContaining({ code: 'chat-not-found' }),
        );
        await expect(saveUserMessage('c', { id: 'a', role: 'assistant', parts: [] }, d)).rejects.toThrow(
          expect.objectContaining({ code: 'invalid-input' }),
        );
        await expect(startAssistantMessage('c', 'm1', {}, d)).rejects.toThrow(
          expect.objectContaining({ code: 'message-conflict' }),
        );
        expect(await getMessages('other', d)).toEqual([userMessage('m1', 'theirs')]);
      });

      it('streams: starts empty, finishes with parts, status and error', async () => {
        await saveUserMessage('c', userMessage('u1', 'hi'), d);
        const started = await startAssistantMessage('c', 'a1', {}, d);
        expect(started).toMatchObject({ status: 'streaming', message: { id: 'a1', role: 'assistant', parts: [] } });
        const finished = await finishAssistantMessage(
          'a1',
          { parts: [{ type: 'text', text: 'partial' }], status: 'error', error: 'Model unreachable' },
          d,
        );
        expect(finished).toMatchObject({ status: 'error', error: 'Model unreachable', seq: 2 });
        expect(await finishAssistantMessage('missing', { parts: [], status: 'complete' }, d)).toBeNull();
      });

      it('continuing an assistant message keeps its parts and position', async () => {
        await saveUserMessage('c', userMessage('u1', 'hi'), d);
        await startAssistantMessage('c', 'a1', {}, d);
        await finishAssistantMessage('a1', { parts: [{ type: 'text', text: 'first step' }], status: 'complete' }, d);
        const again = await startAssistantMessage('c', 'a1', {}, d);
        expect(again).toMatchObject({
          status: 'streaming',
          seq: 2,
          message: { parts: [{ type: 'text', text: 'first step' }] },
        });
      });

      it('deletes the messages after one (regenerate)', async () => {
        await saveUserMessage('c', userMessage('u1', 'one'), d);
        await startAssistantMessage('c', 'a1', {}, d);
        await saveUserMessage('c', userMessage('u2', 'two'), d);
        await startAssistantMessage('c', 'a2', {}, d);
        expect(await deleteMessagesAfter('c', 'u2', {}, d)).toBe(1);
        expect((await getMessages('c', d)).map((m) => m.id)).toEqual(['u1', 'a1', 'u2']);
        expect(await deleteMessagesAfter('c', 'a1', { inclusive: true }, d)).toBe(2);
        expect((await getMessages('c', d)).map((m) => m.id)).toEqual(['u1']);
        expect(await deleteMessagesAfter('c', 'missing', {}, d)).toBe(0);
        expect(await deleteMessagesAfter('other-chat', 'u1', {}, d)).toBe(0);
        // Positions are reused after a delete without clashing.
        await startAssistantMessage('c', 'a3', {}, d);
        expect((await getMessages('c', d)).map((m) => m.id)).toEqual(['u1', 'a3']);
      });

      it('reads corrupt rows leniently instead of failing the whole chat', async () => {
        await saveUserMessage('c', userMessage('u1', 'fine'), d);
        await saveUserMessage('c', userMessage('u2', 'broken'), d);
        await saveUserMessage('c', userMessage('u3', 'half'), d);
        await saveUserMessage('c', userMessage('u4', 'meta'), d);
        const set = (id: string, parts: string, metadata: string | null) =>
          d.db.update(d.t.messages).set({ parts, metadata }).where(eq(d.t.messages.id, id));
        await set('u2', '{not json', null);
        await set('u3', JSON.stringify([{ type: 'text', text: 'kept' }, 42, { no: 'type' }]), null);
        await set('u4', JSON.stringify([{ type: 'text', text: 'meta' }]), '{oops');
        const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
        const records = await getMessageRecords('c', d);
        warn.mockRestore();
        expect(records.map((r) => r.message.id)).toEqual(['u1', 'u2', 'u3', 'u4']);
        expect(records[0]?.readError).toBeUndefined();
        expect(records[1]?.readError).toBe('stored parts are not valid JSON');
        expect(records[1]?.message.parts).toEqual([
          { type: 'text', text: '[This message could not be read: stored parts are not valid JSON.]' },
        ]);
        expect(records[2]?.readError).toBe('2 unreadable part(s) dropped');
        expect(records[2]?.message.parts).toEqual([{ type: 'text', text: 'kept' }]);
        expect(records[3]?.readError).toBe('stored metadata is not valid JSON');
        expect(records[3]?.message).toEqual(userMessage('u4', 'meta'));
      });
    });

    describe('versions (issue 13)', () => {
      const ids = async () => (await getMessages('c', d)).map((m) => m.id);
      const text = async () =>
        (await getMessages('c', d)).map((m) => (m.parts[0] as { text?: string } | undefined)?.text ?? '');

      beforeEach(async () => {
        await createChat({ id: 'c' }, d);
        await saveUserMessage('c', userMessage('u1', 'one'), d);
        await startAssistantMessage('c', 'a1', {}, d);
        await finishAssistantMessage('a1', { parts: [{ type: 'text', text: 'answer one' }], status: 'complete' }, d);
      });

      it('keeps a regenerated answer as version 1/2 and swaps back and forth', async () => {
        expect(await replaceTail('c', 'u1', null, d)).toBe(2);
        expect(await ids()).toEqual(['u1']);
        await startAssistantMessage('c', 'a2', {}, d);
        await finishAssistantMessage('a2', { parts: [{ type: 'text', text: 'answer two' }], status: 'complete' }, d);
        expect(await listVersionGroups('c', d)).toEqual([{ parentId: 'u1', index: 2, count: 2 }]);

        await switchVersion('c', 'u1', 1, d);
        expect(await text()).toEqual(['one', 'answer one']);
        expect(await listVersionGroups('c', d)).toEqual([{ parentId: 'u1', index: 1, count: 2 }]);
        // The stored row comes back whole: status and times.
        const [, a1] = await getMessageRecords('c', d);
        expect(a1).toMatchObject({ status: 'complete', seq: 2 });

        await switchVersion('c', 'u1', 2, d);
        expect(await ids()).toEqual(['u1', 'a2']);
        // A third answer: 3/3, both earlier ones kept.
        expect(await replaceTail('c', 'u1', null, d)).toBe(3);
        expect(await listVersionGroups('c', d)).toEqual([{ parentId: 'u1', index: 3, count: 3 }]);
      });

      it('keeps an edited message and its answers as a version, with the versions nested inside', async () => {
        await saveUserMessage('c', userMessage('u2', 'two'), d);
        await startAssistantMessage('c', 'a2', {}, d);
        // Regenerate the second answer: a group after u2, nested in the tail from u1.
        await replaceTail('c', 'u2', null, d);
        await startAssistantMessage('c', 'a2b', {}, d);
        expect(await listVersionGroups('c', d)).toEqual([{ parentId: 'u2', index: 2, count: 2 }]);

        // Edit the first message (same id, as the AI SDK sends it): the whole chat becomes version 1.
        expect(await replaceTail('c', '', userMessage('u1', 'one, edited'), d)).toBe(2);
        expect(await text()).toEqual(['one, edited']);
        await startAssistantMessage('c', 'b1', {}, d);
        // The group after u2 belongs to the old version: not shown, and not under the new u1's answer.
        expect(await listVersionGroups('c', d)).toEqual([{ parentId: '', index: 2, count: 2 }]);

        await switchVersion('c', '', 1, d);
        expect(await ids()).toEqual(['u1', 'a1', 'u2', 'a2b']);
        expect(await text()).toContain('one');
        expect(await listVersionGroups('c', d)).toEqual(
          expect.arrayContaining([
            { parentId: '', index: 1, count: 2 },
            { parentId: 'u2', index: 2, count: 2 },
          ]),
        );
        await switchVersion('c', 'u2', 1, d);
        expect(await ids()).toEqual(['u1', 'a1', 'u2', 'a2']);

        await switchVersion('c', '', 2, d);
        expect(await ids()).toEqual(['u1', 'b1']);
        expect(await text()).toEqual(['one, edited', '']);
        expect(await listVersionGroups('c', d)).toEqual([{ parentId: '', index: 2, count: 2 }]);
      });

      it('versions nothing when there is no tail, and refuses unknown parents and versions', async () => {
        expect(await replaceTail('c', 'a1', null, d)).toBeNull();
        expect(await listVersionGroups('c', d)).toEqual([]);
        await expect(replaceTail('c', 'missing', null, d)).rejects.toMatchObject({ code: 'invalid-input' });
        await replaceTail('c', 'u1', null, d);
        await expect(switchVersion('c', 'u1', 7, d)).rejects.toMatchObject({ code: 'invalid-input' });
        await expect(switchVersion('c', 'nope', 1, d)).rejects.toMatchObject({ code: 'invalid-input' });
      });

      it('gives a stored message a fresh id when its id was taken meanwhile', async () => {
        await replaceTail('c', 'u1', null, d);
        // A browser reuses the stored answer's id for a message in another chat.
        await createChat({ id: 'other' }, d);
        await saveUserMessage('other', userMessage('a1', 'mine now'), d);
        await switchVersion('c', 'u1', 1, d);
        const [u1, back] = await getMessages('c', d);
        expect(u1!.id).toBe('u1');
        expect(back!.id).not.toBe('a1');
        expect(back!.parts).toEqual([{ type: 'text', text: 'answer one' }]);
      });

      it('goes with its chat', async () => {
        await replaceTail('c', 'u1', null, d);
        await deleteChat('c', d);
        const rows = await d.db.select().from(d.t.messageVersions);
        expect(rows).toEqual([]);
      });

      it('is scoped to the chat owner through the store', async () => {
        const other = createDbChatStore(d, 'someone-else');
        await expect(other.replaceTail('c', 'u1', null)).rejects.toMatchObject({ code: 'chat-not-found' });
        expect(await other.switchVersion('c', 'u1', 1)).toBe(false);
        expect(await other.listVersions('c')).toEqual([]);
        const mine = createDbChatStore(d, LOCAL_USER_ID);
        await mine.replaceTail('c', 'u1', null);
        expect((await mine.loadChatView('c'))!.versions).toEqual([{ parentId: 'u1', index: 2, count: 2 }]);
      });
    });

    describe('activations', () => {
      beforeEach(async () => {
        await createChat({ id: 'c1', title: 'PDF work' }, d);
        await createChat({ id: 'c2', title: 'Spreadsheets' }, d);
      });

      it('keeps the version of the latest activation (what running its files is pinned to)', async () => {
        expect(await recordActivation('c1', 'team:pdf', 'model', t(0), d, 'v1')).toMatchObject({ version: 'v1' });
        expect(await recordActivation('c1', 'team:pdf', 'model', t(2000), d, 'v2')).toMatchObject({ version: 'v2' });
        // Recorded late with an older time: not the latest, so not what it is pinned to.
        expect(await recordActivation('c1', 'team:pdf', 'model', t(1000), d, 'v0')).toMatchObject({ version: 'v2' });
        expect((await getChatActivations('c1', d)).map((a) => a.version)).toEqual(['v2']);
      });

      it('upserts counts per how and logs every event', async () => {
        expect(await recordActivation('c1', 'pdf', 'explicit', t(0), d)).toMatchObject({
          count: 1,
          explicitCount: 1,
          modelCount: 0,
          firstHow: 'explicit',
          lastHow: 'explicit',
        });
        await recordActivation('c1', 'pdf', 'model', t(2000), d);
        // An event recorded late with an older time counts, but does not become the latest.
        const pdf = await recordActivation('c1', 'pdf', 'model', t(1000), d);
        expect(pdf).toEqual({
          chatId: 'c1',
          skillName: 'pdf',
          firstHow: 'explicit',
          lastHow: 'model',
          explicitCount: 1,
          modelCount: 2,
          count: 3,
          firstAt: t(0),
          lastAt: t(2000),
          version: null,
        });
        await recordActivation('c1', 'xlsx', 'model', t(3000), d);
        await recordActivation('c2', 'xlsx', 'explicit', t(4000), d);

        expect((await getChatActivations('c1', d)).map((a) => [a.skillName, a.count])).toEqual([
          ['pdf', 3],
          ['xlsx', 1],
        ]);
        expect(await countActivationEvents({}, d)).toBe(5);
        expect(await countActivationEvents({ skillName: 'xlsx' }, d)).toBe(2);

        const events = await listActivationEvents({ limit: 2 }, d);
        expect(events).toEqual([
          {
            id: 5,
            chatId: 'c2',
            chatTitle: 'Spreadsheets',
            skillName: 'xlsx',
            how: 'explicit',
            at: t(4000),
            userId: 'local',
          },
          { id: 4, chatId: 'c1', chatTitle: 'PDF work', skillName: 'xlsx', how: 'model', at: t(3000), userId: 'local' },
        ]);
        expect((await listActivationEvents({ limit: 2, offset: 2 }, d)).map((e) => e.at)).toEqual([t(2000), t(1000)]);
        expect(await listActivationEvents({ chatId: 'c2' }, d)).toHaveLength(1);

        expect(await activationCountsBySkill(d)).toEqual([
          { skillName: 'pdf', count: 3, explicitCount: 1, modelCount: 2, chatCount: 1, lastAt: t(2000) },
          { skillName: 'xlsx', count: 2, explicitCount: 1, modelCount: 1, chatCount: 2, lastAt: t(4000) },
        ]);
      });

      it('keeps the use counts a while: uses recorded here count at once, the others from the next read', async () => {
        const start = Date.now();
        await recordActivation('c1', 'pdf', 'model', new Date(), d);
        expect(await usageCounts(d, start)).toEqual(new Map([['pdf', 1]]));
        await recordActivation('c1', 'pdf', 'explicit', new Date(), d);
        // A use written by another instance (not through this process's recordActivation).
        const at = new Date();
        await d.db.insert(d.t.activations).values({
          chatId: 'c1',
          skillName: 'xlsx',
          firstHow: 'model',
          lastHow: 'model',
          explicitCount: 0,
          modelCount: 1,
          firstAt: at,
          lastAt: at,
        });
        expect(await usageCounts(d, start + 1000)).toEqual(new Map([['pdf', 2]]));
        // Old enough: the kept counts serve this call, and a read starts; the next calls get what it read.
        expect(await usageCounts(d, start + USAGE_KEPT_MS)).toEqual(new Map([['pdf', 2]]));
        await until(async () => (await usageCounts(d, start + USAGE_KEPT_MS)).has('xlsx') || undefined);
        expect(await usageCounts(d, start + USAGE_KEPT_MS + 1000)).toEqual(
          new Map([
            ['pdf', 2],
            ['xlsx', 1],
          ]),
        );
      });

      it('refuses an unknown chat and writes nothing', async () => {
        await expect(recordActivation('nope', 'pdf', 'model', new Date(), d)).rejects.toThrow(
          expect.objectContaining({ code: 'chat-not-found' }),
        );
        expect(await countActivationEvents({}, d)).toBe(0);
      });
    });

    describe('skill mode overrides', () => {
      it('sets, replaces and clears a mode', async () => {
        await setModeOverride('pdf', 'pinned', d);
        await setModeOverride('pdf', 'off', d);
        await setModeOverride('csv', 'manual', d);
        expect(await listModeOverrides(d)).toEqual(
          new Map([
            ['pdf', 'off'],
            ['csv', 'manual'],
          ]),
        );
        await setModeOverride('pdf', null, d);
        expect(await listModeOverrides(d)).toEqual(new Map([['csv', 'manual']]));
      });
    });

    describe('personal skill preferences', () => {
      it("switches a skill off and on for one person, never another's", async () => {
        expect(await listDisabledSkills('alice', d)).toEqual([]);
        await setSkillDisabled('alice', 'pdf', true, d);
        await setSkillDisabled('alice', 'csv', true, d);
        await setSkillDisabled('alice', 'csv', true, d);
        expect(await listDisabledSkills('alice', d)).toEqual(['csv', 'pdf']);
        expect(await listDisabledSkills('bob', d)).toEqual([]);
        await setSkillDisabled('alice', 'pdf', false, d);
        expect(await listDisabledSkills('alice', d)).toEqual(['csv']);
        await deleteUserData('alice', d);
        expect(await listDisabledSkills('alice', d)).toEqual([]);
      });
    });

    describe('per person', () => {
      beforeEach(async () => {
        await createChat({ id: 'a1', title: 'Alice plans', userId: 'alice', at: t(0) }, d);
        await createChat({ id: 'b1', title: 'Bob plans', userId: 'bob', at: t(1000) }, d);
        await saveUserMessage('a1', userMessage('am1', 'secret budget'), d);
      });

      it("the first admin can take over the loopback person's chats, log lines and switched-off skills", async () => {
        await createChat({ id: 'l1', title: 'Made on loopback', at: t(2000) }, d);
        await recordActivation('l1', 'pdf', 'explicit', t(2100), d);
        await recordDecision(
          { chatId: 'l1', subject: { kind: 'skill', key: 'pdf' }, decision: 'allowed', contentHash: 'h' },
          d,
        );
        await setSkillDisabled(LOCAL_USER_ID, 'csv', true, d);
        await setSkillDisabled(LOCAL_USER_ID, 'pdf', true, d);
        await setSkillDisabled('ada', 'pdf', false, d);
        expect(await countChats(LOCAL_USER_ID, d)).toBe(1);

        expect(await transferUserData(LOCAL_USER_ID, 'ada', d)).toBe(1);
        expect(await countChats(LOCAL_USER_ID, d)).toBe(0);
        expect((await listChats({ userId: 'ada' }, d)).map((c) => c.id)).toEqual(['l1']);
        const { activationEvents, permissionDecisions } = d.t;
        const owners = async (table: typeof activationEvents | typeof permissionDecisions) =>
          (await d.db.select({ userId: table.userId }).from(table).where(eq(table.chatId, 'l1'))).map((r) => r.userId);
        expect(await owners(activationEvents)).toEqual(['ada']);
        expect(await owners(permissionDecisions)).toEqual(['ada']);
        // Ada's own answer about pdf stands; the loopback person's csv comes along.
        expect(await listDisabledSkills('ada', d)).toEqual(['csv']);
        expect(await listDisabledSkills(LOCAL_USER_ID, d)).toEqual([]);
        // Nobody else's chats move.
        expect((await listChats({ userId: 'alice' }, d)).map((c) => c.id)).toEqual(['a1']);
      });

      it('new chats belong to the loopback person unless told otherwise', async () => {
        expect((await createChat({ id: 'l1' }, d)).userId).toBe(LOCAL_USER_ID);
      });

      it("lists and searches only one's own chats", async () => {
        expect((await listChats({ userId: 'alice' }, d)).map((c) => c.id)).toEqual(['a1']);
        expect((await listChats({ userId: 'bob' }, d)).map((c) => c.id)).toEqual(['b1']);
        expect((await listChats({}, d)).map((c) => c.id)).toEqual(['a1', 'b1']);
        expect((await searchChats('plans', { userId: 'bob' }, d)).map((h) => h.chat.id)).toEqual(['b1']);
        expect(await searchChats('budget', { userId: 'bob' }, d)).toEqual([]);
        expect((await searchChats('budget', { userId: 'alice' }, d)).map((h) => h.chat.id)).toEqual(['a1']);
      });

      it("another person's chat is a missing chat: get, rename, model, delete", async () => {
        expect(await getChat('a1', d, 'bob')).toBeNull();
        expect(await chatExists('a1', d, 'bob')).toBe(false);
        expect(await renameChat('a1', 'Mine now', d, 'bob')).toBeNull();
        expect(await setChatModel('a1', 'x:y', d, 'bob')).toBeNull();
        expect(await deleteChat('a1', d, 'bob')).toBe(false);
        expect(await getChat('a1', d, 'alice')).toMatchObject({ title: 'Alice plans', model: null });
      });

      it('ensureChat on an id another person owns is refused, never a takeover', async () => {
        await expect(ensureChat({ id: 'a1', title: 'x', userId: 'bob' }, d)).rejects.toMatchObject({
          code: 'chat-not-found',
        });
        expect(await ensureChat({ id: 'a1', userId: 'alice' }, d)).toMatchObject({ created: false });
        expect((await getChat('a1', d))?.userId).toBe('alice');
      });

      it("the store of B cannot read or change A's chat", async () => {
        const bob = createDbChatStore(d, 'bob');
        const alice = createDbChatStore(d, 'alice');
        expect((await bob.listChats()).map((c) => c.id)).toEqual(['b1']);
        expect(await bob.getChat('a1')).toBeNull();
        expect(await bob.loadChatView('a1')).toBeNull();
        expect(await bob.getMessages('a1')).toEqual([]);
        expect(await bob.getActivations('a1')).toEqual([]);
        expect(await bob.renameChat('a1', 'x')).toBeNull();
        expect(await bob.setChatModel('a1', null)).toBeNull();
        expect(await bob.deleteChat('a1')).toBe(false);
        await expect(bob.createChat({ id: 'a1' })).rejects.toMatchObject({ code: 'chat-not-found' });
        await expect(bob.saveUserMessage('a1', userMessage('bm', 'hi') as never)).rejects.toBeInstanceOf(DbError);
        expect(
          await bob.replaceMessageIfUnchanged(
            'a1',
            userMessage('am1', 'x') as never,
            userMessage('am1', 'secret budget').parts as never,
          ),
        ).toBe(false);
        expect(await bob.searchChats('budget')).toEqual([]);
        expect((await alice.loadChatView('a1'))?.messages.map((m) => m.id)).toEqual(['am1']);
      });

      it("counts usage per person and deletes one person's data", async () => {
        await recordActivation('a1', 'pdf', 'model', t(1), d);
        await recordActivation('a1', 'pdf', 'explicit', t(2), d);
        await recordActivation('b1', 'csv', 'model', t(3), d);
        const run = { skillName: 'pdf', script: 'x.py', args: [], exitCode: 0, timedOut: false, durationMs: 5 };
        await recordScriptRun({ ...run, chatId: 'a1' }, d);
        await recordDecision(
          { chatId: 'b1', subject: { kind: 'skill', key: 'csv' }, decision: 'allowed', contentHash: 'h' },
          d,
        );
        expect(await usageByUser(d)).toEqual([
          { userId: 'alice', activations: 2, scriptRuns: 1 },
          { userId: 'bob', activations: 1, scriptRuns: 0 },
        ]);
        // A shell command is on the same record, marked as one (the column the run_kind migration added).
        await recordScriptRun(
          { ...run, kind: 'command', skillName: 'pdf csv', script: 'soffice --version', chatId: 'b1' },
          d,
        );
        expect((await listScriptRuns(10, d)).map((r) => [r.kind, r.skillName, r.script, r.userId])).toEqual([
          ['command', 'pdf csv', 'soffice --version', 'bob'],
          ['script', 'pdf', 'x.py', 'alice'],
        ]);
        await d.db.delete(d.t.scriptRuns).where(eq(d.t.scriptRuns.kind, 'command'));
        expect(await deleteUserData('alice', d)).toEqual(['a1']);
        expect(await getChat('a1', d)).toBeNull();
        expect(await getChat('b1', d)).not.toBeNull();
        expect(await usageByUser(d)).toEqual([
          { userId: 'bob', activations: 1, scriptRuns: 0 },
          { userId: null, activations: 0, scriptRuns: 1 },
        ]);
      });
    });

    describe('concurrency', () => {
      it('concurrent messages on one chat get distinct positions', async () => {
        await createChat({ id: 'c' }, d);
        const saved = await Promise.all(
          Array.from({ length: 8 }, (_, i) => saveUserMessage('c', userMessage(`m${i}`, `n${i}`), d)),
        );
        expect(new Set(saved.map((s) => s.seq)).size).toBe(8);
        expect((await getMessageRecords('c', d)).map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      });

      it('concurrent activations all count', async () => {
        await createChat({ id: 'c' }, d);
        await Promise.all([
          recordActivation('c', 'pdf', 'model', t(1), d),
          recordActivation('c', 'pdf', 'explicit', t(2), d),
        ]);
        expect((await getChatActivations('c', d))[0]).toMatchObject({ count: 2, explicitCount: 1, modelCount: 1 });
        expect(await countActivationEvents({}, d)).toBe(2);
      });

      it('concurrent grants for the same content make one', async () => {
        const pdf = { kind: 'skill', key: 'pdf' };
        await Promise.all([addGrant(pdf, 'h', t(0), d), addGrant(pdf, 'h', t(0), d)]);
        expect(await listGrants(d)).toHaveLength(1);
      });

      it('of two compare-and-set answers only one wins', async () => {
        await createChat({ id: 'c' }, d);
        const asked = userMessage('q', 'asked');
        await saveUserMessage('c', asked, d);
        const results = await Promise.all([
          replacePartsIfUnchanged('c', userMessage('q', 'one'), asked.parts, d),
          replacePartsIfUnchanged('c', userMessage('q', 'two'), asked.parts, d),
        ]);
        expect(results.filter(Boolean)).toHaveLength(1);
      });
    });

    describe('trigger checks', () => {
      it('keep each kind apart, with the content hash, newest first', async () => {
        const row = { skillName: 'pdf', descriptionHash: 'd1', model: 'm', runs: 1, report: '{}' };
        const old = await addTriggerCheck(d, { ...row, at: t(0) });
        const eval1 = await addTriggerCheck(d, { ...row, kind: 'trigger', contentHash: 'c1', at: t(1) });
        const proposals = await addTriggerCheck(d, { ...row, kind: 'describe', contentHash: 'c1', at: t(2) });
        const trigger = await listTriggerChecks(d, 'pdf');
        expect(trigger.map((r) => [r.id, r.kind, r.contentHash])).toEqual([
          [eval1, 'trigger', 'c1'],
          [old, 'trigger', null],
        ]);
        expect((await listTriggerChecks(d, 'pdf', 5, 'describe')).map((r) => r.id)).toEqual([proposals]);
        expect(await listTriggerChecks(d, 'docx')).toEqual([]);
      });
    });
  });
}
