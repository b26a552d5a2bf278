/**
 * An attached PDF over the real wire of each provider: OpenAI's Responses API and Anthropic's Messages API are sent
 * the file itself (`input_file`, `document`), an OpenAI-compatible server its text; a PDF over the cap goes as text
 * to every provider. Local servers answer like the providers and keep each request's body.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfBytes } from '../../test/documents';
import { type ReceivedRequest, type ReplayServer, startReplayServer } from '../../test/model/replay-server';
import { offlineTurnDeps } from '../../test/turn-deps';
import { openDb, sqliteDatabase } from '../db';
import { MAX_PDF_PART_BYTES, readPdfFile } from '../documents/pdf-file';
import { anthropicModel, compatibleModel, openAIModel } from '../model/provider';
import { bwrapAvailability } from '../sandbox/select';
import { saveUpload } from '../workspace/workspace';
import { createDbChatStore } from './db-store';
import type { ChatStore } from './store';
import { createRunningTurns, runChatTurn, type TurnDeps } from './turn';
import type { ChatMessage } from './wire-types';

/** The turns these tests run, as the app keeps them (`app.turns`). */
const turns = createRunningTurns();

const appDir = path.resolve(import.meta.dirname, '../..');
const fixture = (name: string) => fs.readFileSync(path.join(appDir, 'server/model/fixtures', name), 'utf8');
const PDF = pdfBytes(['Invoice 2041: total due 1,250 EUR.', 'Payment within 30 days.']);
const PDF_BASE64 = PDF.toString('base64');

let tmp: string;
let store: ChatStore;
const servers: Record<'responses' | 'anthropic' | 'compatible', ReplayServer> = {} as never;

/** Streams answer; the chat-title side call (not streamed) is refused, which only leaves the first-line title. */
const replying = (sse: string) => (request: ReceivedRequest) =>
  (request.body as { stream?: boolean }).stream ? { sse } : { status: 400, json: { error: { message: 'no' } } };
const streamed = (server: ReplayServer) => server.received.filter((r) => (r.body as { stream?: boolean }).stream);

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-pdf-files-'));
  store = createDbChatStore(sqliteDatabase(openDb(path.join(tmp, 'chat.db'))));
  servers.responses = await startReplayServer(replying(fixture('responses-text.sse.txt')));
  servers.anthropic = await startReplayServer(replying(fixture('anthropic-messages-text.sse.txt')));
  servers.compatible = await startReplayServer(replying(fixture('chat-completions-text.sse.txt')));
});

afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s.close()));
  fs.rmSync(tmp, { recursive: true, force: true });
});

const MODELS = {
  responses: () => ({
    model: openAIModel('gpt-4.1-mini', 'sk-test', { baseURL: `${servers.responses.origin}/v1` }),
    provider: 'openai',
  }),
  anthropic: () => ({
    model: anthropicModel('claude-sonnet-4-5', 'sk-ant-test', `${servers.anthropic.origin}/v1`),
    provider: 'anthropic',
  }),
  compatible: () => ({
    model: compatibleModel('replay-mini', `${servers.compatible.origin}/v1`),
    provider: 'compatible',
  }),
};

function deps(kind: keyof typeof MODELS): TurnDeps {
  return { ...offlineTurnDeps(store, tmp, 0, turns), model: { ...MODELS[kind](), label: kind } };
}

/** A new chat with `file` uploaded and attached to its first message; the body the provider received. */
async function sendAttached(kind: keyof typeof MODELS, chatId: string, file: Buffer): Promise<string> {
  const d = deps(kind);
  const { execution } = d.config;
  await store.createChat({ id: chatId });
  const saved = await saveUpload(execution.workspace.dir, chatId, 'invoice.pdf', file, execution.workspace);
  expect(saved.ok).toBe(true);
  const message: ChatMessage = {
    id: `${chatId}-m1`,
    role: 'user',
    parts: [{ type: 'text', text: 'what does this say?' }],
    metadata: { attachments: [{ name: 'invoice.pdf', size: file.length, mediaType: 'application/pdf' }] },
  };
  const response = await runChatTurn({ chatId, trigger: 'submit-message', message }, d);
  expect(response.status).toBe(200);
  await response.text();
  await turns.wait(chatId);
  const messages = await store.getMessages(chatId);
  // The stored message stays the person's words; the file goes only to the model.
  expect(messages[0]!.parts).toEqual([{ type: 'text', text: 'what does this say?' }]);
  expect(messages.at(-1)!.parts.some((p) => p.type === 'text' && p.text.trim() !== '')).toBe(true);
  return JSON.stringify(streamed(servers[kind]).at(-1)!.body);
}

const canReadPdfs = (await bwrapAvailability(65534)).ok && fs.existsSync('/usr/bin/pdftotext');

describe('an attached PDF', () => {
  it("goes to OpenAI's Responses API as an input_file", async () => {
    const body = JSON.parse(await sendAttached('responses', 'pdf-openai', PDF)) as {
      input: { role: string; content: { type: string; filename?: string; file_data?: string; text?: string }[] }[];
    };
    const user = body.input.find((m) => m.role === 'user')!;
    expect(user.content[0]).toEqual({
      type: 'input_file',
      filename: 'invoice.pdf',
      file_data: `data:application/pdf;base64,${PDF_BASE64}`,
    });
    expect(user.content[1]).toEqual({ type: 'input_text', text: 'what does this say?' });
    expect(JSON.stringify(body)).not.toContain('attached_document');
  });

  it("goes to Anthropic's Messages API as a document", async () => {
    const body = JSON.parse(await sendAttached('anthropic', 'pdf-anthropic', PDF)) as {
      messages: { role: string; content: { type: string; source?: unknown; title?: string; text?: string }[] }[];
    };
    const user = body.messages.find((m) => m.role === 'user')!;
    expect(user.content[0]).toMatchObject({
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: PDF_BASE64 },
      title: 'invoice.pdf',
    });
    expect(user.content[1]).toMatchObject({ type: 'text', text: 'what does this say?' });
    expect(JSON.stringify(body)).not.toContain('attached_document');
  });

  it.skipIf(!canReadPdfs)('goes to an OpenAI-compatible server as its text', async () => {
    const body = await sendAttached('compatible', 'pdf-compatible', PDF);
    expect(body).toContain('<attached_document name=\\"invoice.pdf\\" pages=\\"2\\">');
    expect(body).toContain('Invoice 2041: total due 1,250 EUR.');
    expect(body).not.toContain(PDF_BASE64);
  });
});

describe('readPdfFile', () => {
  const root = () => deps('responses').config.execution.workspace;

  it('gives the bytes of a PDF within the cap, and nothing for a file over it or not a PDF', async () => {
    const { dir } = root();
    await saveUpload(dir, 'read-pdf', 'small.pdf', PDF, root());
    await saveUpload(dir, 'read-pdf', 'fake.pdf', Buffer.from('not a pdf at all'), root());
    expect(Buffer.from((await readPdfFile(dir, 'read-pdf', 'small.pdf'))!).equals(PDF)).toBe(true);
    expect(await readPdfFile(dir, 'read-pdf', 'small.pdf', PDF.length - 1)).toBeNull();
    expect(await readPdfFile(dir, 'read-pdf', 'fake.pdf')).toBeNull();
    expect(await readPdfFile(dir, 'read-pdf', 'missing.pdf')).toBeNull();
    expect(await readPdfFile(dir, 'read-pdf', '../chat.db')).toBeNull();
    expect(MAX_PDF_PART_BYTES).toBeGreaterThan(PDF.length);
  });
});
