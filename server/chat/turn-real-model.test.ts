/**
 * What only a real model does in a turn, over the real wire: a local server speaks Chat Completions (the answers
 * streamed from a recorded fixture, the side calls as plain JSON completions), and the turn runs as the chat route
 * runs it. After the first exchange the model names the chat; when a chat nears the context window the model
 * summarises the oldest turns, the summary replaces them in the input (skill instructions whole, after it), is
 * stored with the answer and reused. Failures of either side call never fail the answer.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pdfBytes } from '../../test/documents';
import { type ReceivedRequest, type ReplayServer, startReplayServer } from '../../test/model/replay-server';
import { createAccessResolver } from '../access/resolver';
import { loadConfig } from '../config';
import { openDb, sqliteDatabase } from '../db';
import { compatibleModel } from '../model/provider';
import { bwrapAvailability } from '../sandbox/select';
import { discoverSkills } from '../skills/discovery/discovery';
import type { Skill } from '../skills/types';
import { saveUpload } from '../workspace/workspace';
import { createDbChatStore } from './db-store';
import { TITLE_INSTRUCTIONS } from './generated-title';
import type { ChatStore } from './store';
import { SUMMARY_INSTRUCTIONS } from './summary';
import { createRunningTurns, runChatTurn, type TurnDeps } from './turn';
import type { ChatDataParts, ChatMessage } from './wire-types';

/** The turns these tests run, as the app keeps them (`app.turns`). */
const turns = createRunningTurns();

const appDir = path.resolve(import.meta.dirname, '../..');
const TEXT_SSE = fs.readFileSync(path.join(appDir, 'server/model/fixtures/chat-completions-text.sse.txt'), 'utf8');
const ANSWER = "I activated **csv-to-json**. Paste your CSV and I'll convert it to JSON.";
const MODEL_TITLE = 'Converting CSV files to JSON';

interface WireRequest {
  model: string;
  stream?: boolean;
  messages: { role: string; content: string | { type: string; text?: string }[] }[];
}

let tmp: string;
let store: ChatStore;
let skills: Skill[];
let server: ReplayServer;
/** What the side calls answer: a status and the reply's text, per kind of call. */
let replies: { title: { status: number; text: string }; summary: { status: number; text: string } };
let summaries = 0;

const body = (r: ReceivedRequest) => r.body as WireRequest;
const contentOf = (m: WireRequest['messages'][number]) =>
  typeof m.content === 'string' ? m.content : m.content.map((c) => c.text ?? '').join('');
const systemOf = (r: ReceivedRequest) => contentOf(body(r).messages.find((m) => m.role === 'system')!);
const isTitleCall = (r: ReceivedRequest) => !body(r).stream && systemOf(r) === TITLE_INSTRUCTIONS;
const isSummaryCall = (r: ReceivedRequest) => !body(r).stream && systemOf(r) === SUMMARY_INSTRUCTIONS;
const answerCalls = () => server.received.filter((r) => body(r).stream === true);

function completion(text: string) {
  return {
    id: 'chatcmpl-side',
    object: 'chat.completion',
    created: 1763712000,
    model: 'replay-mini',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 50, completion_tokens: 8, total_tokens: 58 },
  };
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-turn-real-'));
  store = createDbChatStore(sqliteDatabase(openDb(path.join(tmp, 'chat.db'))));
  skills = (
    await discoverSkills([{ path: path.join(appDir, '.skills'), scope: 'project', kind: 'app' }], {
      limits: loadConfig({ appDir, env: {} }).limits,
    })
  ).skills;
  server = await startReplayServer((request) => {
    if (body(request).stream) return { sse: TEXT_SSE };
    const reply = isSummaryCall(request) ? replies.summary : replies.title;
    if (isSummaryCall(request)) summaries++;
    if (reply.status !== 200) return { status: reply.status, json: { error: { message: 'overloaded' } } };
    return { json: completion(reply.text) };
  });
});

afterAll(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

beforeEach(() => {
  replies = {
    title: { status: 200, text: `"${MODEL_TITLE}."` },
    summary: { status: 200, text: 'SUMMARY-ONE: the user pasted two long notes about filler words.' },
  };
});

function deps(overrides: Partial<TurnDeps['model']> = {}): TurnDeps {
  const config = loadConfig({ appDir, env: { SKILLCHAT_DB: path.join(tmp, 'chat.db') }, home: path.join(tmp, 'h') });
  return {
    store,
    turns,
    config,
    skills: { skills },
    model: {
      model: compatibleModel('replay-mini', `${server.origin}/v1`),
      label: 'replay-mini',
      provider: 'compatible',
      ...overrides,
    },
    access: createAccessResolver(config),
  };
}

let seq = 0;
async function send(chatId: string, text: string, d = deps(), metadata?: ChatMessage['metadata']) {
  seq += 1;
  const message: ChatMessage = { id: `m${seq}`, role: 'user', parts: [{ type: 'text', text }], metadata };
  const response = await runChatTurn({ chatId, trigger: 'submit-message', message }, d);
  expect(response.status).toBe(200);
  await response.text();
  await turns.wait(chatId);
  const view = (await store.loadChatView(chatId))!;
  return { view, answer: view.messages.at(-1)! };
}

const textOf = (m: ChatMessage) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
const compactionOf = (m: ChatMessage) =>
  (m.parts.find((p) => p.type === 'data-compaction') as { data: ChatDataParts['compaction'] } | undefined)?.data;

describe('a title from the model after the first exchange', () => {
  it('is asked for once, without streaming, with the exchange; the stored title is its answer, cleaned', async () => {
    const { chat } = await store.createChat({ id: 'titled' });
    const before = server.received.length;
    const { view, answer } = await send(chat.id, 'Convert this CSV to JSON please:\na,b\n1,2');
    expect(textOf(answer)).toBe(ANSWER);
    expect(answer.metadata?.status).toBeUndefined();
    expect(view.chat.title).toBe(MODEL_TITLE);
    const calls = server.received.slice(before).filter(isTitleCall);
    expect(calls).toHaveLength(1);
    expect(body(calls[0]!).model).toBe('replay-mini');
    const prompt = contentOf(body(calls[0]!).messages.find((m) => m.role === 'user')!);
    expect(prompt).toContain('Convert this CSV to JSON please');
    expect(prompt).toContain('Paste your CSV');

    await send(chat.id, 'and another one');
    expect(server.received.slice(before).filter(isTitleCall)).toHaveLength(1);
    expect((await store.getChat(chat.id))?.title).toBe(MODEL_TITLE);
  });

  it('never replaces a title a person gave', async () => {
    const { chat } = await store.createChat({ id: 'named', title: 'My own name' });
    await send(chat.id, 'Convert this CSV to JSON please');
    expect((await store.getChat(chat.id))?.title).toBe('My own name');
    // Nor a rename made while the answer ran: the stored title is no longer the one derived from the message.
    expect(await store.renameChatIfTitle(chat.id, 'Convert this CSV to JSON please', 'Model title')).toBe(false);
    expect((await store.getChat(chat.id))?.title).toBe('My own name');
  });

  it('keeps the first line when the title call fails, and the answer is complete', async () => {
    replies.title = { status: 500, text: '' };
    const { chat } = await store.createChat({ id: 'title-fails' });
    const { view, answer } = await send(chat.id, 'Convert this CSV to JSON please\nmore lines');
    expect(view.chat.title).toBe('Convert this CSV to JSON please');
    expect(textOf(answer)).toBe(ANSWER);
    expect(answer.metadata?.status).toBeUndefined();
  });

  it('the offline model is not asked: its chats keep the first line', async () => {
    const { chat } = await store.createChat({ id: 'offline-title' });
    const before = server.received.length;
    const { view } = await send(chat.id, 'Convert this CSV to JSON please', deps({ provider: 'offline' }));
    expect(server.received.slice(before).filter(isTitleCall)).toHaveLength(0);
    expect(view.chat.title).toBe('Convert this CSV to JSON please');
  });
});

describe('a long chat summarised by the model', () => {
  const filler = (tag: string) => `${tag}: ${Array.from({ length: 900 }, (_, i) => `filler${i}`).join(' ')}`;
  const small = (over: Partial<TurnDeps['model']> = {}) => deps({ contextWindow: 8_000, ...over });

  it('replaces the oldest turns by one summary, keeps skill instructions whole after it, and reuses it', async () => {
    const { chat } = await store.createChat({ id: 'summarised' });
    await send(chat.id, '/commit-message', small());
    const startedAt = summaries;
    await send(chat.id, filler('note one'), small());
    await send(chat.id, filler('note two'), small());
    const calls = answerCalls();
    const { answer } = await send(chat.id, 'one more commit message please', small());

    // One summarising call (on the turn that first needed it), over the left-out turns, as data.
    expect(summaries - startedAt).toBe(1);
    const summaryCall = server.received.filter(isSummaryCall).at(-1)!;
    const transcript = contentOf(body(summaryCall).messages.find((m) => m.role === 'user')!);
    expect(transcript).toMatch(/^<transcript>\nUser: \/commit-message/);

    // The answer's request: the summary, then the skill's instructions; the summarised turns are gone.
    const request = answerCalls().slice(calls.length).at(-1)!;
    const system = systemOf(request);
    const summaryAt = system.indexOf('<conversation_summary>\nSUMMARY-ONE');
    expect(summaryAt).toBeGreaterThan(0);
    expect(system.indexOf('<skill_content name="commit-message">')).toBeGreaterThan(summaryAt);
    expect(system).toContain('# Commit messages');
    expect(system).not.toContain('earlier_messages_left_out');
    const sent = body(request)
      .messages.filter((m) => m.role !== 'system')
      .map(contentOf);
    expect(sent.some((c) => c.startsWith('/commit-message'))).toBe(false);
    expect(sent.at(-1)).toBe('one more commit message please');

    // Stored with the answer that wrote it, keyed by the last message it covers; the chat shows "summarised".
    const history = await store.getMessages(chat.id);
    const writer = history.find((m) => m.role === 'assistant' && compactionOf(m)?.summary);
    const marker = compactionOf(writer!);
    expect(marker).toMatchObject({ summarised: true, summary: expect.stringContaining('SUMMARY-ONE') });
    expect(history.some((m) => m.id === marker?.through)).toBe(true);
    expect(compactionOf(answer)).toMatchObject({ summarised: true, through: marker?.through });
    expect(textOf(answer)).toBe(ANSWER);

    // The next turn reuses it: no new summarising call, the same summary in the instructions.
    const count = summaries;
    const next = await send(chat.id, 'thanks, a short one more', small());
    expect(summaries).toBe(count);
    expect(systemOf(answerCalls().at(-1)!)).toContain('SUMMARY-ONE');
    expect(compactionOf(next.answer)).toMatchObject({ summarised: true, through: marker?.through });
    expect(compactionOf(next.answer)?.summary).toBeUndefined();

    // Once the turns after it no longer fit, they are folded into it: the old summary goes along as data.
    replies.summary.text = 'SUMMARY-TWO: notes, then three more long notes.';
    await send(chat.id, filler('note three'), small());
    await send(chat.id, filler('note four'), small());
    const last = await send(chat.id, 'and the last one', small());
    const extended = server.received.filter(isSummaryCall).at(-1)!;
    expect(contentOf(body(extended).messages.find((m) => m.role === 'user')!)).toContain(
      '<previous_summary>\nSUMMARY-ONE',
    );
    expect(systemOf(answerCalls().at(-1)!)).toContain('SUMMARY-TWO');
    expect(compactionOf(last.answer)).toMatchObject({ summarised: true });
    const written = (await store.getMessages(chat.id)).flatMap((m) => compactionOf(m)?.summary ?? []);
    expect(written.map((w) => w.split(':')[0])).toEqual(['SUMMARY-ONE', 'SUMMARY-TWO']);
  });

  it('a failed summary drops the turns with a note instead; the answer is complete', async () => {
    replies.summary = { status: 500, text: '' };
    const { chat } = await store.createChat({ id: 'summary-fails' });
    await send(chat.id, '/commit-message', small());
    await send(chat.id, filler('note one'), small());
    await send(chat.id, filler('note two'), small());
    const { answer } = await send(chat.id, 'one more commit message please', small());
    expect(compactionOf(answer)).toEqual({ dropped: expect.any(Number) });
    expect(systemOf(answerCalls().at(-1)!)).toContain('earlier_messages_left_out');
    expect(systemOf(answerCalls().at(-1)!)).toContain('# Commit messages');
    expect(textOf(answer)).toBe(ANSWER);
  });

  it('the offline model drops with a note and is never asked to summarise', async () => {
    const { chat } = await store.createChat({ id: 'offline-long' });
    const count = summaries;
    const offline = small({ provider: 'offline' });
    await send(chat.id, '/commit-message', offline);
    await send(chat.id, filler('note one'), offline);
    await send(chat.id, filler('note two'), offline);
    const { answer } = await send(chat.id, 'one more commit message please', offline);
    expect(compactionOf(answer)).toEqual({ dropped: expect.any(Number) });
    expect(summaries).toBe(count);
  });
});

const canReadPdfs = (await bwrapAvailability(65534)).ok && fs.existsSync('/usr/bin/pdftotext');

describe('a document attached to a message', () => {
  it.skipIf(!canReadPdfs)('reaches the model as its text, before the words of that message only', async () => {
    const { chat } = await store.createChat({ id: 'with-pdf' });
    const { execution } = deps().config;
    const pdf = pdfBytes(['Invoice 2041: total due 1,250 EUR.', 'Payment within 30 days.']);
    const saved = await saveUpload(execution.workspace.dir, chat.id, 'invoice.pdf', pdf, execution.workspace);
    expect(saved.ok).toBe(true);
    const attachments = [{ name: 'invoice.pdf', size: pdf.length, mediaType: 'application/pdf' }];
    await send(chat.id, 'what does this say?', deps(), { attachments });

    const users = body(answerCalls().at(-1)!).messages.filter((m) => m.role === 'user');
    expect(users).toHaveLength(1);
    const sent = contentOf(users[0]!);
    expect(sent).toMatch(/^<attached_document name="invoice.pdf" pages="2">\n/);
    expect(sent).toContain('Invoice 2041: total due 1,250 EUR.');
    expect(sent).toContain('Payment within 30 days.');
    expect(sent).toMatch(/<\/attached_document>what does this say\?$/);
    // The person's stored message is their words; the text is added to what the model is sent, turn after turn.
    expect(textOf((await store.getMessages(chat.id)).at(-2)!)).toBe('what does this say?');
    await send(chat.id, 'and the due date?');
    const again = body(answerCalls().at(-1)!)
      .messages.filter((m) => m.role === 'user')
      .map(contentOf);
    expect(again[0]).toContain('Invoice 2041');
    expect(again[1]).toBe('and the due date?');
  });
});
