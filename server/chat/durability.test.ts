/**
 * Turn durability on the server: the answer is stored as it streams, a reconnect replays it from the start,
 * shutdown stores cut answers as interrupted and refuses new turns, and ids or deletions never end in a 500.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { UIMessageChunk } from 'ai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { offlineTurnDeps } from '../../test/turn-deps';
import {
  closeDb,
  type Database,
  getMessageRecords,
  getTurnLease,
  listScriptRuns,
  openDb,
  recordScriptRun,
  sqliteDatabase,
} from '../db';
import { createDbChatStore } from './db-store';
import { answerProgress } from './progress';
import { createInProcessStreams } from './running/resumable';
import type { ChatStore } from './store';
import { createRunningTurns, runChatTurn, stopChat, type TurnDeps } from './turn';
import type { ChatMessage } from './wire-types';

let tmp: string;
let db: Database;
let store: ChatStore;
/** The turns these tests run, as the app keeps them (`app.turns`); a fresh table after each test (drained ones refuse). */
let turns = createRunningTurns();

/** The offline model with a pause between chunks: an answer of a few seconds. */
function slowDeps(chunkDelayMs = 40): TurnDeps {
  return offlineTurnDeps(store, tmp, chunkDelayMs, turns);
}

let n = 0;
function ask(chatId: string, d: TurnDeps, text = 'Tell me a long story about durable storage, please.') {
  n += 1;
  const message: ChatMessage = { id: `d${n}`, role: 'user', parts: [{ type: 'text', text }] };
  return runChatTurn({ chatId, trigger: 'submit-message', message }, d);
}

const answerRecord = async (chatId: string) => (await getMessageRecords<ChatMessage>(chatId, db)).at(-1)!;
const textOf = (m: ChatMessage) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-durability-'));
  db = sqliteDatabase(openDb(path.join(tmp, 'chat.db')));
  store = createDbChatStore(db);
});
afterEach(() => {
  turns = createRunningTurns();
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('turn durability', () => {
  it('stores the answer while it streams, with no reader (a closed tab), at least every second', async () => {
    const { chat } = await store.createChat({ id: 'streams-to-disk' });
    await ask(chat.id, slowDeps(100)); // the response is never read
    await sleep(1600);
    const during = await answerRecord(chat.id);
    expect(during.status).toBe('streaming');
    expect(textOf(during.message).length).toBeGreaterThan(0);
    await sleep(1100);
    expect(textOf((await answerRecord(chat.id)).message).length).toBeGreaterThan(textOf(during.message).length);
    await stopChat(chat.id, { turns });
    const stopped = await answerRecord(chat.id);
    expect(stopped.status).toBe('aborted');
    expect(textOf(stopped.message).startsWith(textOf(during.message))).toBe(true);
  });

  it('writes at once at each tool result, and leaves the end to the final write', async () => {
    const saves: ChatMessage['parts'][] = [];
    const progress = answerProgress({
      save: (parts) => {
        saves.push(parts);
      },
      intervalMs: 60_000,
    });
    // The events as the SSE copy carries them (the SDK's JsonToSseTransformStream).
    const push = (chunk: UIMessageChunk) => progress.push(`data: ${JSON.stringify(chunk)}\n\n`);
    push({ type: 'start', messageId: 'a1' });
    push({ type: 'tool-input-available', toolCallId: 't1', toolName: 'skills_activate', input: { name: 'x' } });
    // A text that quotes a tool result's type is text, not a result.
    push({ type: 'text-start', id: 'q' });
    push({ type: 'text-delta', id: 'q', delta: '{"type":"tool-output-available"}' });
    await sleep(50);
    expect(saves).toHaveLength(0); // no result yet, and the interval has not come
    push({ type: 'tool-output-available', toolCallId: 't1', output: { name: 'x' } });
    await sleep(50);
    expect(saves).toHaveLength(1);
    expect(saves[0]).toEqual([
      expect.objectContaining({ type: 'tool-skills_activate', state: 'output-available' }),
      expect.objectContaining({ type: 'text', text: '{"type":"tool-output-available"}' }),
    ]);
    push({ type: 'text-start', id: 'x' });
    push({ type: 'text-delta', id: 'x', delta: 'hello' });
    progress.push('data: [DONE]\n\n');
    progress.end();
    await sleep(20);
    expect(saves).toHaveLength(1);
  });

  it('a reconnect gets the running answer from its first chunk, then live to the end', async () => {
    const streams = createInProcessStreams();
    let push: (s: string) => void = () => {};
    let end: () => void = () => {};
    const source = new ReadableStream<string>({
      start(c) {
        push = (s) => c.enqueue(s);
        end = () => c.close();
      },
    });
    const published = streams.publish('c1', source);
    push('data: 1\n\n');
    push('data: 2\n\n');
    await sleep(10);
    const resumed = streams.resume('c1')!;
    const read = new Response(resumed.pipeThrough(new TextEncoderStream())).text();
    push('data: 3\n\n');
    end();
    await published;
    expect(await read).toBe('data: 1\n\ndata: 2\n\ndata: 3\n\n');
    expect(streams.resume('c1')).toBeNull();
  });

  it('shutdown: new turns get a 503, finished answers stay complete, cut ones are stored as interrupted', async () => {
    const { chat } = await store.createChat({ id: 'shutdown' });
    // Slow enough that the answer cannot end within the grace, however idle the machine.
    await ask(chat.id, slowDeps(400));
    await sleep(1200);
    const started = Date.now();
    const result = await turns.drain(300);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result).toEqual({ finished: 0, cut: 1 });
    const stored = await answerRecord(chat.id);
    expect(stored.status).toBe('interrupted');
    expect(textOf(stored.message).length).toBeGreaterThan(0);
    await expect(ask(chat.id, slowDeps())).rejects.toMatchObject({ status: 503, code: 'unavailable:shutting-down' });
  });

  it('shutdown lets an answer that ends within the grace finish', async () => {
    const { chat } = await store.createChat({ id: 'shutdown-grace' });
    await ask(chat.id, slowDeps(0), '/nothing-here hello');
    expect(await turns.drain(5000)).toMatchObject({ cut: 0 });
    expect((await answerRecord(chat.id)).status).toBe('complete');
  });

  it('a message id of another chat is a 409, not a 500', async () => {
    const a = (await store.createChat({ id: 'ids-a' })).chat;
    const b = (await store.createChat({ id: 'ids-b' })).chat;
    const message: ChatMessage = { id: 'shared-id', role: 'user', parts: [{ type: 'text', text: 'hi' }] };
    await (await runChatTurn({ chatId: a.id, trigger: 'submit-message', message }, slowDeps(0))).text();
    await turns.wait(a.id);
    await expect(runChatTurn({ chatId: b.id, trigger: 'submit-message', message }, slowDeps(0))).rejects.toMatchObject({
      code: 'message-conflict',
    });
    // The refused request left no turn behind.
    await (await ask(b.id, slowDeps(0), 'hello again')).text();
    await turns.wait(b.id);
    expect((await answerRecord(b.id)).status).toBe('complete');
  });

  it('a script run logged after its chat was deleted is kept without the chat, not an FK error', async () => {
    const { chat } = await store.createChat({ id: 'deleted-before-log' });
    await store.deleteChat(chat.id);
    const run = {
      chatId: chat.id,
      skillName: 's',
      script: 'x.py',
      args: [],
      exitCode: 0,
      timedOut: false,
      durationMs: 5,
    };
    await expect(recordScriptRun(run, db)).resolves.toBeUndefined();
    expect((await listScriptRuns(1, db))[0]).toMatchObject({ chatId: null, script: 'x.py' });
  });

  it("a new message's turn commits twice, a bare chat route three times: the lease with the message, the answer's end", async () => {
    // Its own file, with no checkpoints, so every commit since the start is a commit frame in the WAL.
    const file = path.join(tmp, 'commits.db');
    const native = openDb(file);
    native.$client.pragma('wal_autocheckpoint = 0');
    const own = sqliteDatabase(native);
    const ownStore = createDbChatStore(own);
    const commitsDuring = async (fn: () => Promise<unknown>) => {
      const before = walCommits(`${file}-wal`);
      await fn();
      return walCommits(`${file}-wal`) - before;
    };
    const message = (id: string): ChatMessage => ({ id, role: 'user', parts: [{ type: 'text', text: 'Hello there' }] });
    // What any chat app writes per turn: the person's message, the answer's start, the answer.
    await ownStore.createChat({ id: 'bare' });
    const bare = await commitsDuring(async () => {
      await ownStore.saveUserMessage('bare', message('bare-u'));
      await ownStore.startAssistantMessage('bare', 'bare-a');
      await ownStore.finishAssistantMessage('bare-a', { parts: [], status: 'complete' });
    });
    await ownStore.createChat({ id: 'turn' });
    // Stored only at its end: the progress writes come with time (each second), not with the turn's steps.
    const deps = { ...slowDeps(0), store: ownStore, incremental: false };
    const turn = await commitsDuring(async () => {
      const response = await runChatTurn(
        { chatId: 'turn', trigger: 'submit-message', message: message('turn-u') },
        deps,
      );
      await response.text();
      await turns.wait('turn');
    });
    expect(bare).toBe(3);
    // The lease, the message, the title and the answer's start are one commit; the answer's end and the lease's one.
    expect(turn).toBe(2);
    // What the folded writes still do: the title, the answer, the lease gone.
    expect((await ownStore.getChat('turn'))?.title).toBe('Hello there');
    expect((await getMessageRecords('turn', own)).map((m) => m.status)).toEqual(['complete', 'complete']);
    expect(await getTurnLease(own, 'turn')).toBeNull();
    // Every commit was flushed: the lease's rode in the turn's own, and no lighter setting was left behind.
    expect(native.$client.pragma('synchronous', { simple: true })).toBe(2);
    closeDb(native);
  });
});

/** Commits in a WAL file: frames whose "database size after commit" is set, under the header's salt. */
function walCommits(walFile: string): number {
  const wal = fs.readFileSync(walFile);
  const pageSize = wal.readUInt32BE(8);
  const salt = wal.readBigUInt64BE(16);
  let commits = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (wal.readBigUInt64BE(at + 8) !== salt) break;
    if (wal.readUInt32BE(at + 4) !== 0) commits++;
  }
  return commits;
}
