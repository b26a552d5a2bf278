/**
 * MCP tools in a chat turn, end to end on the server: real MCP servers (stdio, Streamable HTTP, one that hangs),
 * the app's connection manager, `runChatTurn` with the offline model (`mcp.<label>.<tool> {json}`) and with a real
 * provider over the wire (a local Chat Completions server that asks for the tool).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANG_SERVER, STDIO_SERVER, startMcpHttpServer, type TestHttpServer } from '../../test/mcp/servers';
import { type ReceivedRequest, type ReplayServer, startReplayServer } from '../../test/model/replay-server';
import { runTurnToEnd } from '../../test/turn-deps';
import { until } from '../../test/until';
import { createAccessResolver } from '../access/resolver';
import { buildMcpAdmin } from '../admin/mcp';
import { createDbChatStore } from '../chat/db-store';
import type { ChatStore } from '../chat/store';
import type { TurnDeps } from '../chat/turn';
import { createRunningTurns } from '../chat/turn';
import type { ChatMessage } from '../chat/wire-types';
import { loadConfig } from '../config';
import { type Database, listDecisions, openDb, sqliteDatabase } from '../db';
import { compatibleModel } from '../model/provider';
import { createOfflineModel } from '../offline-model/model';
import { type McpConfig, resolveMcpConfig } from './config';
import { createMcpManager, type McpManager } from './manager';
import { listMcpPrefs, setMcpPref, switchedOffServers } from './personal';

/** The turns these tests run, as the app keeps them (`app.turns`). */
const turns = createRunningTurns();

const appDir = path.resolve(import.meta.dirname, '../..');
let tmp: string;
let db: Database;
let store: ChatStore;
let http: TestHttpServer;
let manager: McpManager;
let replay: ReplayServer;

const servers: McpConfig['servers'] = {
  local: { command: process.execPath, args: [STDIO_SERVER] },
  remote: { url: '' },
  // Accepts the connection, never answers: it must never hold a turn.
  stuck: { command: process.execPath, args: [HANG_SERVER] },
};

function mcpConfig(settings: Partial<McpConfig> = {}): McpConfig {
  return { ...resolveMcpConfig({ mcpServers: servers }), connectTimeoutMs: 60_000, ...settings };
}

function deps(settings: Partial<McpConfig> = {}, overrides: Partial<TurnDeps> = {}): TurnDeps {
  const config = loadConfig({ appDir, env: { SKILLCHAT_DB: path.join(tmp, 'chat.db') }, home: path.join(tmp, 'h') });
  return {
    store,
    turns,
    config,
    skills: { skills: [] },
    model: { model: createOfflineModel(), label: 'Offline model (built-in)' },
    access: createAccessResolver(config),
    mcp: { manager, config: mcpConfig(settings) },
    ...overrides,
  };
}

async function post(chatId: string, body: Parameters<typeof runTurnToEnd>[1], d: TurnDeps) {
  return (await runTurnToEnd(chatId, body, d)).messages.at(-1)!;
}

type McpPart = {
  type: string;
  toolName?: string;
  state: string;
  input?: unknown;
  output?: { server: string; tool: string; text: string; truncated?: boolean; items?: string[] };
  errorText?: string;
  approval?: { id: string };
};
const mcpParts = (m: ChatMessage) => m.parts.filter((p) => p.type === 'dynamic-tool') as unknown as McpPart[];
const text = (m: ChatMessage) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-mcp-turn-'));
  db = sqliteDatabase(openDb(path.join(tmp, 'chat.db')));
  store = createDbChatStore(db);
  http = await startMcpHttpServer();
  servers.remote = { url: http.url };
  manager = createMcpManager(mcpConfig(), { env: { PATH: process.env.PATH }, appDir, log: () => {} });
  manager.start();
  await until(() => (manager.connected().length === 2 ? true : undefined));
  // A model that, like a real one, calls the tool it was offered and then answers from the result.
  replay = await startReplayServer((request: ReceivedRequest) => {
    const body = request.body as { stream?: boolean; messages: { role: string; content: unknown }[] };
    if (!body.stream) return { status: 500, json: { error: { message: 'no titles here' } } };
    const results = body.messages.filter((m) => m.role === 'tool');
    if (results.length === 0) return { sse: toolCallSse('mcp_remote_lookup', { key: 'k7' }) };
    return { sse: textSse(`The server said: ${String(results[0]!.content)}`) };
  });
});

afterAll(async () => {
  await manager.close();
  await http.close();
  await replay.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  const body = { id: 'chatcmpl-mcp', object: 'chat.completion.chunk', created: 1763712000, model: 'replay-mini' };
  return `data: ${JSON.stringify({ ...body, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}
function toolCallSse(name: string, args: unknown): string {
  return [
    chunk({
      role: 'assistant',
      content: null,
      tool_calls: [{ index: 0, id: 'call_mcp', type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    }),
    chunk({}, 'tool_calls'),
    'data: [DONE]\n\n',
  ].join('');
}
function textSse(said: string): string {
  return [chunk({ role: 'assistant', content: said }), chunk({}, 'stop'), 'data: [DONE]\n\n'].join('');
}

describe('MCP tools in a turn', () => {
  it('the offline model calls a tool named in the message and reports its output', async () => {
    const { chat } = await store.createChat({ id: 'echo' });
    const answer = await post(chat.id, { text: 'mcp.local.echo {"text": "hello over stdio"}' }, deps());
    const [part] = mcpParts(answer);
    expect(part).toMatchObject({
      toolName: 'mcp_local_echo',
      state: 'output-available',
      input: { text: 'hello over stdio' },
      output: { server: 'local', tool: 'echo', text: 'echo: hello over stdio' },
    });
    expect(text(answer)).toContain('I called `mcp.local.echo`');
    expect(text(answer)).toContain('echo: hello over stdio');
    expect(manager.list().find((s) => s.label === 'local')!.stats.echo).toMatchObject({ calls: 1, failures: 0 });
  });

  it('images are described, long text is capped, an isError result is a tool error', async () => {
    const { chat } = await store.createChat({ id: 'shapes' });
    const picture = mcpParts(await post(chat.id, { text: 'mcp.local.picture' }, deps()))[0]!;
    expect(picture.output).toMatchObject({ text: 'a 1x1 pixel', items: ['image (image/png, 70 bytes), not shown'] });
    const big = mcpParts(await post(chat.id, { text: 'mcp.local.big {"kib": 8}' }, deps({ maxOutputBytes: 1024 })))[0]!;
    expect(big.output?.truncated).toBe(true);
    expect(big.output?.text).toMatch(/^x{1024}\n\[output truncated at 1024 bytes\]$/);
    const failed = await post(chat.id, { text: 'mcp.local.fail' }, deps());
    expect(mcpParts(failed)[0]).toMatchObject({
      state: 'output-error',
      errorText: '"fail" on the MCP server "local" reported an error: it failed on purpose',
    });
    expect(text(failed)).toContain('`mcp.local.fail` failed');
  });

  it('a call over mcp.timeoutMs ends as a tool error and the answer goes on', async () => {
    const { chat } = await store.createChat({ id: 'timeout' });
    const started = Date.now();
    const answer = await post(chat.id, { text: 'mcp.local.slow {"ms": 10000}' }, deps({ timeoutMs: 300 }));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(mcpParts(answer)[0]).toMatchObject({
      state: 'output-error',
      errorText: '"slow" on the MCP server "local" did not answer within 0.3 s',
    });
    expect(text(answer)).toContain('did not answer within 0.3 s');
  });

  it('under "ask" the call waits with its approval card, then runs after approval; Always allow stores a grant', async () => {
    const d = deps({ rules: { 'local/*': 'ask' } });
    const { chat } = await store.createChat({ id: 'ask' });
    const waiting = await post(chat.id, { text: 'mcp.local.add {"a": 2, "b": 40}' }, d);
    const [asked] = mcpParts(waiting);
    expect(asked).toMatchObject({ state: 'approval-requested', input: { a: 2, b: 40 } });
    expect(JSON.stringify(waiting.parts)).toContain('Call the tool \\"add\\" of the MCP server \\"local\\"');
    expect(manager.list().find((s) => s.label === 'local')!.stats.add).toBeUndefined();

    const done = await post(
      chat.id,
      { approvals: [{ approvalId: asked!.approval!.id, approved: true, always: true }] },
      d,
    );
    expect(mcpParts(done)[0]).toMatchObject({ state: 'output-available', output: { text: '42' } });
    expect(text(done)).toContain('42');
    const decisions = (await listDecisions(10, db)).filter((x) => x.chatId === chat.id);
    expect(decisions).toEqual([
      expect.objectContaining({ subjectKind: 'mcp-tool', subject: 'local/add', decision: 'always' }),
    ]);

    // The grant holds for this version of the tool: the next call runs without asking.
    const again = await post(chat.id, { text: 'mcp.local.add {"a": 1, "b": 1}' }, d);
    expect(mcpParts(again)[0]).toMatchObject({ state: 'output-available', output: { text: '2' } });
  });

  it('a denied call is not run and the answer says so', async () => {
    const d = deps({ rules: { local: 'ask' } });
    const { chat } = await store.createChat({ id: 'ask-deny' });
    const [asked] = mcpParts(await post(chat.id, { text: 'mcp.local.echo {"text": "no"}' }, d));
    const done = await post(chat.id, { approvals: [{ approvalId: asked!.approval!.id, approved: false }] }, d);
    expect(mcpParts(done)[0]?.state).toBe('output-denied');
    expect(text(done)).toContain('Calling `mcp.local.echo` was not approved');
  });

  it('"deny" hides the tool: not offered, and the answer says why it was not called', async () => {
    const d = deps({ rules: { 'local/echo': 'deny', 'local/*': 'allow' } });
    const { chat } = await store.createChat({ id: 'deny' });
    const answer = await post(chat.id, { text: 'mcp.local.echo {"text": "hi"}' }, d);
    expect(mcpParts(answer)).toEqual([]);
    expect(text(answer)).toContain('I cannot call `mcp.local.echo`: it is not among my tools');
    expect(text(answer)).toContain('`mcp.local.add`');
    expect(text(answer)).not.toContain('`mcp.local.echo`,');
  });

  it('a person switches a server off for themselves (the subject mcp-server <label>) and their turns leave it out', async () => {
    const prefs = { db, config: { mcp: mcpConfig() } };
    await setMcpPref(prefs, 'p2', 'local', true);
    expect((await listMcpPrefs({ db, mcp: manager }, 'p2')).find((s) => s.label === 'local')).toMatchObject({
      status: 'connected',
      disabled: true,
    });
    await expect(setMcpPref(prefs, 'p2', 'nope', true)).rejects.toMatchObject({ status: 404 });
    const { chat } = await store.createChat({ id: 'switched-off' });
    const off = await post(
      chat.id,
      { text: 'mcp.local.echo {"text": "hi"}' },
      deps({}, { mcpSwitchedOff: await switchedOffServers(db, 'p2') }),
    );
    expect(mcpParts(off)).toEqual([]);
    expect(text(off)).toContain('`mcp.remote.lookup`');
    // Someone else still has it.
    const on = await post(
      chat.id,
      { text: 'mcp.local.echo {"text": "hi"}' },
      deps({}, { mcpSwitchedOff: await switchedOffServers(db, 'p3') }),
    );
    expect(mcpParts(on)[0]?.state).toBe('output-available');
  });

  it('a server that hangs never holds a turn: it completes at once without those tools, and /admin says why', async () => {
    const stuck = manager.list().find((s) => s.label === 'stuck')!;
    expect(stuck.status).toBe('connecting');
    const { chat } = await store.createChat({ id: 'hang' });
    const started = Date.now();
    const answer = await post(chat.id, { text: 'mcp.remote.lookup {"key": "k1"}' }, deps());
    expect(Date.now() - started).toBeLessThan(2000);
    expect(mcpParts(answer)[0]).toMatchObject({ state: 'output-available', output: { text: 'value of k1' } });
    const missing = await post(chat.id, { text: 'mcp.stuck.anything' }, deps());
    expect(text(missing)).toContain('I cannot call `mcp.stuck.anything`');
    const admin = buildMcpAdmin(manager.list(), mcpConfig());
    expect(admin.servers.find((s) => s.label === 'stuck')).toMatchObject({ status: 'connecting', tools: [] });
    expect(admin.servers.find((s) => s.label === 'remote')).toMatchObject({
      status: 'connected',
      tools: [
        expect.objectContaining({ displayName: 'mcp.remote.lookup', permission: 'allow', calls: 1 }),
        expect.anything(),
      ],
    });
  });

  it('a real model over the wire is offered the tool, calls it, and gets its result back', async () => {
    const { chat } = await store.createChat({ id: 'replay' });
    const before = replay.received.length;
    const model = {
      model: compatibleModel('replay-mini', `${replay.origin}/v1`),
      label: 'replay-mini',
      provider: 'compatible',
    };
    const answer = await post(chat.id, { text: 'What is k7?' }, deps({}, { model }));
    const calls = replay.received.slice(before).filter((r) => (r.body as { stream?: boolean }).stream);
    const offered = (
      calls[0]!.body as { tools: { function: { name: string; description: string; parameters: unknown } }[] }
    ).tools;
    const lookup = offered.find((t) => t.function.name === 'mcp_remote_lookup')!;
    expect(lookup.function.description).toContain('[MCP server "remote", tool "lookup"] Looks a key up.');
    expect(lookup.function.parameters).toMatchObject({ type: 'object', properties: { key: { type: 'string' } } });
    expect(offered.map((t) => t.function.name)).not.toContain('mcp_stuck_anything');
    expect(mcpParts(answer)[0]).toMatchObject({ toolName: 'mcp_remote_lookup', state: 'output-available' });
    expect(text(answer)).toContain('value of k7');
  });
});
