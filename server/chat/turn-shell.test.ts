/**
 * A real model using the shell, over the real wire: a local server speaks Chat Completions and, like a model
 * following a skill's instructions, activates the xlsx skill, writes a workbook with Python in one command, runs
 * the skill's own recalc script from /skills/xlsx in another, then answers from what the commands printed. The turn
 * runs as the chat route runs it, with the real sandbox; the tool results the model is sent are checked.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReceivedRequest, type ReplayServer, startReplayServer } from '../../test/model/replay-server';
import { createAccessResolver } from '../access/resolver';
import { loadConfig } from '../config';
import { openDb, sqliteDatabase } from '../db';
import { compatibleModel } from '../model/provider';
import { bwrapAvailability } from '../sandbox/select';
import { discoverSkills } from '../skills/discovery/discovery';
import type { Skill } from '../skills/types';
import { runtimeInstalled } from '../toolchain/skills-runtime';
import { TOOL_ACTIVATE, TOOL_SHELL } from '../tools/names';
import { createDbChatStore } from './db-store';
import type { ChatStore } from './store';
import { createRunningTurns, runChatTurn, type TurnDeps } from './turn';
import type { ChatMessage } from './wire-types';

/** The turns these tests run, as the app keeps them (`app.turns`). */
const turns = createRunningTurns();

const appDir = path.resolve(import.meta.dirname, '../..');
const RUNTIME = process.env.SKILLCHAT_RUNTIME_DIR ?? path.join(appDir, 'data', 'runtime');
const ready =
  (await bwrapAvailability(100_000)).ok &&
  (await runtimeInstalled(RUNTIME)) &&
  fs.existsSync('/usr/bin/soffice') &&
  fs.existsSync(path.join(appDir, '.skills', 'xlsx', 'scripts', 'recalc.py'));

interface WireMessage {
  role: string;
  content: string | null | { type: string; text?: string }[];
  tool_calls?: { function: { name: string; arguments: string } }[];
}

const MAKE_BOOK = [
  "python3 - <<'PY'",
  'import openpyxl',
  'wb = openpyxl.Workbook()',
  'ws = wb.active',
  'ws["A1"], ws["A2"], ws["A3"] = 19, 23, "=A1+A2"',
  'wb.save("sum.xlsx")',
  'print("wrote sum.xlsx")',
  'PY',
].join('\n');
const RECALC = 'python3 /skills/xlsx/scripts/recalc.py sum.xlsx';

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  const body = { id: 'chatcmpl-shell', object: 'chat.completion.chunk', created: 1763712000, model: 'replay-mini' };
  return `data: ${JSON.stringify({ ...body, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

function toolCallSse(name: string, args: unknown, id: string): string {
  const json = JSON.stringify(args);
  return [
    chunk({
      role: 'assistant',
      content: null,
      tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }],
    }),
    // In two pieces, as providers stream arguments.
    chunk({ tool_calls: [{ index: 0, function: { arguments: json.slice(0, 10) } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: json.slice(10) } }] }),
    chunk({}, 'tool_calls'),
    'data: [DONE]\n\n',
  ].join('');
}

function textSse(text: string): string {
  return [chunk({ role: 'assistant', content: text }), chunk({}, 'stop'), 'data: [DONE]\n\n'].join('');
}

const messagesOf = (r: ReceivedRequest) => (r.body as { messages: WireMessage[] }).messages;
const textOfContent = (c: WireMessage['content']) =>
  typeof c === 'string' ? c : (c ?? []).map((p) => p.text ?? '').join('');

let tmp: string;
let store: ChatStore;
let skills: Skill[];
let server: ReplayServer;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-turn-shell-'));
  store = createDbChatStore(sqliteDatabase(openDb(path.join(tmp, 'chat.db'))));
  skills = (
    await discoverSkills([{ path: path.join(appDir, '.skills'), scope: 'project', kind: 'app' }], {
      limits: loadConfig({ appDir, env: {} }).limits,
    })
  ).skills;
  // The model's next move follows from how many tool results it has been sent, like a real model's would.
  server = await startReplayServer((request) => {
    if (!(request.body as { stream?: boolean }).stream)
      return { status: 500, json: { error: { message: 'no titles here' } } };
    const results = messagesOf(request).filter((m) => m.role === 'tool').length;
    if (results === 0) return { sse: toolCallSse(TOOL_ACTIVATE, { name: 'xlsx' }, 'call_1') };
    if (results === 1) return { sse: toolCallSse(TOOL_SHELL, { command: MAKE_BOOK }, 'call_2') };
    if (results === 2) return { sse: toolCallSse(TOOL_SHELL, { command: RECALC }, 'call_3') };
    return { sse: textSse('A3 is now 42; sum.xlsx holds the computed value.') };
  });
});

afterAll(async () => {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function deps(shell: TurnDeps['shell']): TurnDeps {
  const config = loadConfig({
    appDir,
    env: { SKILLCHAT_DB: path.join(tmp, 'chat.db'), SKILLCHAT_RUNTIME_DIR: RUNTIME },
    home: path.join(tmp, 'h'),
  });
  return {
    store,
    turns,
    config,
    skills: { skills },
    model: {
      model: compatibleModel('replay-mini', `${server.origin}/v1`),
      label: 'replay-mini',
      provider: 'compatible',
    },
    access: createAccessResolver(config),
    shell,
    owner: 'local',
  };
}

describe.skipIf(!ready)('a real model runs a skill as written through the shell tool', () => {
  it('activates, runs two commands across steps, gets their output back and answers from it', async () => {
    const { chat } = await store.createChat({ id: 'shell-steps' });
    const before = server.received.length;
    const message: ChatMessage = {
      id: 'u1',
      role: 'user',
      parts: [{ type: 'text', text: 'Make a workbook that adds 19 and 23, then recalculate it' }],
    };
    const response = await runChatTurn({ chatId: chat.id, trigger: 'submit-message', message }, deps('allow'));
    await response.text();
    await turns.wait(chat.id);

    // The answer's steps (the title is asked for apart, without streaming).
    const calls = server.received.slice(before).filter((r) => (r.body as { stream?: boolean }).stream);
    expect(calls).toHaveLength(4);
    // The shell tool was offered to the model, with its description.
    const offered = (calls[0]!.body as { tools: { function: { name: string; description: string } }[] }).tools;
    expect(offered.find((t) => t.function.name === TOOL_SHELL)?.function.description).toMatch(/\/skills\/<name>/);

    // What the model was sent back after each step: the activation says where the skill is in the sandbox; each
    // command's result carries its output and the files it made.
    const last = messagesOf(calls[3]!)
      .filter((m) => m.role === 'tool')
      .map((m) => textOfContent(m.content));
    expect(last[0]).toContain('/skills/xlsx');
    expect(last[1]).toContain('wrote sum.xlsx');
    expect(last[1]).toContain('"name":"sum.xlsx"');
    expect(JSON.parse(JSON.parse(last[2]!).stdout)).toMatchObject({ status: 'success', total_errors: 0 });
    expect(last[2]).toContain('"status":"changed"');
    expect(last[2]).toContain('"exitCode":0');

    const answer = (await store.loadChatView(chat.id))!.messages.at(-1)!;
    const shellParts = answer.parts.filter((p) => p.type === `tool-${TOOL_SHELL}`) as {
      state: string;
      output?: { state: string; exitCode: number };
    }[];
    expect(shellParts.map((p) => [p.state, p.output?.state, p.output?.exitCode])).toEqual([
      ['output-available', 'done', 0],
      ['output-available', 'done', 0],
    ]);
    expect(answer.parts.some((p) => p.type === 'text' && p.text.includes('A3 is now 42'))).toBe(true);
  }, 120_000);

  it('with the shell off the tool is not offered at all', async () => {
    const { chat } = await store.createChat({ id: 'shell-off' });
    const before = server.received.length;
    const message: ChatMessage = { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'Recalculate it' }] };
    const response = await runChatTurn({ chatId: chat.id, trigger: 'submit-message', message }, deps('off'));
    await response.text();
    await turns.wait(chat.id);
    const first = server.received[before]!.body as { tools?: { function: { name: string } }[] };
    expect((first.tools ?? []).map((t) => t.function.name)).not.toContain(TOOL_SHELL);
  }, 60_000);
});
