/**
 * Secrets over the real turn path: a model (the replay server, speaking Chat Completions) activates a skill granted
 * a loopback upstream and runs a command that calls it and prints its environment. The proxy adds the header
 * secret upstream; the model is never sent a secret's value, and neither the stored chat nor its export holds one.
 * The tool result the model reads carries the run's egress lines. Real sandbox, real proxy, loopback only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReceivedRequest, type ReplayServer, startReplayServer } from '../../test/model/replay-server';
import { startTestUpstreams, type TestUpstreams } from '../../test/sandbox/egress-proxy';
import { createAccessResolver } from '../access/resolver';
import { loadConfig } from '../config';
import { openDb, sqliteDatabase } from '../db';
import type { Resolver } from '../egress/address';
import { compatibleModel } from '../model/provider';
import { bwrapAvailability } from '../sandbox/select';
import { discoverSkills } from '../skills/discovery/discovery';
import type { Skill } from '../skills/types';
import { runtimeInstalled } from '../toolchain/skills-runtime';
import { TOOL_ACTIVATE, TOOL_SHELL } from '../tools/names';
import { createDbChatStore } from './db-store';
import { exportChat } from './export';
import type { ChatStore } from './store';
import { createRunningTurns, runChatTurn, type TurnDeps } from './turn';
import type { ChatMessage } from './wire-types';

/** The turns these tests run, as the app keeps them (`app.turns`). */
const turns = createRunningTurns();

const appDir = path.resolve(import.meta.dirname, '../..');
const RUNTIME = process.env.SKILLCHAT_RUNTIME_DIR ?? path.join(appDir, 'data', 'runtime');
const ready = (await bwrapAvailability(100_000)).ok && (await runtimeInstalled(RUNTIME));
const HEADER_SECRET = 'ghp_turn-header-secret-5c1e9a';
const ENV_SECRET = 'turn-env-secret-2b7d4f9c';

const resolve: Resolver = async (host) => {
  if (host !== 'upstream.test') throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return [{ address: '127.0.0.1', family: 4 }];
};

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  const body = { id: 'chatcmpl-egress', object: 'chat.completion.chunk', created: 1763712000, model: 'replay-mini' };
  return `data: ${JSON.stringify({ ...body, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

function toolCallSse(name: string, args: unknown, id: string): string {
  const tool_calls = [{ index: 0, id, type: 'function', function: { name, arguments: JSON.stringify(args) } }];
  return [chunk({ role: 'assistant', content: null, tool_calls }), chunk({}, 'tool_calls'), 'data: [DONE]\n\n'].join(
    '',
  );
}

const textSse = (text: string) =>
  [chunk({ role: 'assistant', content: text }), chunk({}, 'stop'), 'data: [DONE]\n\n'].join('');

const toolResults = (r: ReceivedRequest) =>
  (r.body as { messages: Array<{ role: string; content: unknown }> }).messages.filter((m) => m.role === 'tool');

let tmp: string;
let store: ChatStore;
let skills: Skill[];
let server: ReplayServer;
let upstreams: TestUpstreams;
let command: string;

beforeAll(async () => {
  if (!ready) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-turn-egress-'));
  fs.chmodSync(tmp, 0o755);
  upstreams = await startTestUpstreams(fs.mkdtempSync(path.join(tmp, 'certs-')));
  const url = `http://upstream.test:${upstreams.httpPort}/issues`;
  command = `curl -sS -H "Authorization: Bearer $GITHUB_TOKEN" ${url}; printenv GITHUB_TOKEN SIGNING_KEY; env | base64 -w0`;
  fs.writeFileSync(
    path.join(tmp, 'skillchat.config.json'),
    JSON.stringify({
      network: { skills: { 'github-*': [`upstream.test:${upstreams.httpPort}`] }, private: ['127.0.0.1/32'] },
      secrets: {
        GITHUB_TOKEN: {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own `${env:NAME}` syntax
          value: '${env:EGRESS_TURN_TOKEN}',
          skills: ['github-*'],
          hosts: [`upstream.test:${upstreams.httpPort}`],
          header: 'Authorization: Bearer {}',
        },
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own `${env:NAME}` syntax
        SIGNING_KEY: { value: '${env:EGRESS_TURN_SIGNING}', skills: ['github-*'] },
      },
    }),
  );
  process.env.EGRESS_TURN_TOKEN = HEADER_SECRET;
  process.env.EGRESS_TURN_SIGNING = ENV_SECRET;
  store = createDbChatStore(sqliteDatabase(openDb(path.join(tmp, 'chat.db'))));
  skills = (
    await discoverSkills(
      [{ path: path.join(import.meta.dirname, 'fixtures', 'egress-turn'), scope: 'project', kind: 'app' }],
      {
        limits: loadConfig({ appDir, env: {} }).limits,
      },
    )
  ).skills;
  server = await startReplayServer((request) => {
    if (!(request.body as { stream?: boolean }).stream)
      return { status: 500, json: { error: { message: 'no titles' } } };
    const results = toolResults(request).length;
    if (results === 0) return { sse: toolCallSse(TOOL_ACTIVATE, { name: 'github-notes' }, 'call_1') };
    if (results === 1) return { sse: toolCallSse(TOOL_SHELL, { command }, 'call_2') };
    return { sse: textSse('Filed.') };
  });
});

afterAll(async () => {
  if (!ready) return;
  delete process.env.EGRESS_TURN_TOKEN;
  delete process.env.EGRESS_TURN_SIGNING;
  await server.close();
  await upstreams.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function deps(): TurnDeps {
  const config = loadConfig({
    appDir,
    env: {
      SKILLCHAT_CONFIG: path.join(tmp, 'skillchat.config.json'),
      SKILLCHAT_DB: path.join(tmp, 'chat.db'),
      SKILLCHAT_RUNTIME_DIR: RUNTIME,
    },
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
    shell: 'allow',
    owner: 'local',
    egress: { secrets: { get: async () => null }, db: null, resolve },
  };
}

describe.skipIf(!ready)('secrets in a real turn', () => {
  it('reach the upstream and never the model, the stored chat or its export', async () => {
    const { chat } = await store.createChat({ id: 'egress-turn' });
    const message: ChatMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'File a note' }] };
    const response = await runChatTurn({ chatId: chat.id, trigger: 'submit-message', message }, deps());
    await response.text();
    await turns.wait(chat.id);

    // The proxy added the header secret on the way out.
    expect(upstreams.received.map((r) => r.authorization)).toEqual([`Bearer ${HEADER_SECRET}`]);

    const sent = JSON.stringify(server.received.map((r) => r.body));
    const view = (await store.loadChatView(chat.id))!;
    const stored = JSON.stringify(view);
    const exported = exportChat(view, 'json').body + exportChat(view, 'md').body;
    for (const text of [sent, stored, exported]) {
      // The raw values, and the env secret's base64 at each alignment it can take inside `env | base64`.
      const base64 = [0, 1, 2].map((lead) =>
        Buffer.concat([Buffer.alloc(lead), Buffer.from(ENV_SECRET)])
          .toString('base64')
          .slice(4, -4),
      );
      for (const value of [HEADER_SECRET, ENV_SECRET, ...base64]) {
        expect(text).not.toContain(value);
      }
    }
    // What the model read instead: the run's output with the env secret redacted, and the egress line.
    const results = toolResults(server.received.filter((r) => (r.body as { stream?: boolean }).stream).at(-1)!);
    const shellResult = JSON.stringify(results.at(-1)?.content);
    expect(shellResult).toContain('http upstream says hello to /issues');
    expect(shellResult).toContain('[secret SIGNING_KEY]');
    expect(shellResult).toContain('skillchat-placeholder-GITHUB_TOKEN-');
    expect(shellResult).toContain(`\\"host\\":\\"upstream.test\\",\\"port\\":${upstreams.httpPort},\\"allowed\\":true`);
  }, 120_000);
});
