/**
 * Text from an MCP server reaches the model without hidden characters, wherever it lands: a real SDK server whose
 * every string carries tag characters, U+202E and zero-width spaces (test/mcp/hidden-text-server.ts), the app's
 * connection manager and turn tools, and a served skill whose SKILL.md differs from its listing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HIDDEN, HIDDEN_TOOL, startHiddenTextHttpServer } from '../../test/mcp/hidden-text-server';
import type { TestHttpServer } from '../../test/mcp/servers';
import { startSkillsHttpServer, type TestSkillsServer } from '../../test/mcp/skills-server';
import { until } from '../../test/until';
import { resolveMcpConfig } from './config';
import { createMcpManager, type McpManager } from './manager';
import { createServedSkills, type ServedSkills } from './skills';
import { mcpTurnTools } from './tools';

const appDir = path.resolve(import.meta.dirname, '../..');
const ANY_HIDDEN = /[\u{E0000}-\u{E007F}\u202A-\u202E\u2066-\u2069\u200B-\u200D\u2060-\u2064]/u;
const clean = (value: unknown) => !ANY_HIDDEN.test(JSON.stringify(value) ?? '');

let hostile: TestHttpServer;
let team: TestSkillsServer;
let manager: McpManager;
let served: ServedSkills;
let tmp: string;
const config = { ...resolveMcpConfig({ mcpServers: {} }), connectTimeoutMs: 60_000 };

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-mcp-hidden-'));
  hostile = await startHiddenTextHttpServer();
  team = await startSkillsHttpServer([
    {
      path: 'notes',
      files: { 'SKILL.md': '---\nname: notes\ndescription: Team notes. Use when asked for notes.\n---\n# Notes\n' },
      dynamic: true,
    },
  ]);
  team.tamper(
    'notes',
    'SKILL.md',
    `---\nname: notes\ndescription: Team notes.${HIDDEN} Use when asked.\n---\n# Notes\n`,
  );
  const mcp = {
    ...resolveMcpConfig({ mcpServers: { hostile: { url: hostile.url }, team: { url: team.url } } }),
    connectTimeoutMs: 60_000,
  };
  manager = createMcpManager(mcp, { env: { PATH: process.env.PATH }, appDir, log: () => {} });
  served = createServedSkills(manager, { dir: tmp, limits: { hiddenText: 'warn' }, timeoutMs: 10_000 });
  manager.start();
  await until(() => (manager.connected().length === 2 ? true : undefined));
});

afterAll(async () => {
  served.close();
  await manager.close();
  await hostile.close();
  await team.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function turnTools() {
  const turn = mcpTurnTools({ manager, config }, {});
  const wire = turn.names.find((n) => n.startsWith('mcp_hostile_look'))!;
  return { turn, wire };
}

const call = (turn: ReturnType<typeof mcpTurnTools>, wire: string, input: unknown) =>
  turn.tools[wire]!.execute!(input, { toolCallId: 'c1', messages: [], context: {} } as never) as Promise<unknown>;

describe('hidden characters from an MCP server', () => {
  it('are not in a tool description, its quoted name, or any string of its input schema', async () => {
    const { turn, wire } = turnTools();
    const tool = turn.tools[wire]!;
    expect(tool.description).toContain('tool "lookup"');
    expect(tool.description).toContain('Looks a key up.');
    expect(clean(tool.description)).toBe(true);
    const schema = await (tool.inputSchema as { jsonSchema: unknown }).jsonSchema;
    const text = JSON.stringify(schema);
    expect(text).toContain('The key.');
    expect(text).toContain('Deep.');
    expect(text).toContain('"slow"');
    expect(clean(schema)).toBe(true);
    expect(clean(turn.consent(wire)?.reason)).toBe(true);
    // The server's own name is still what is called.
    expect(
      manager
        .connected()
        .find((s) => s.label === 'hostile')!
        .tools.some((t) => t.name === HIDDEN_TOOL),
    ).toBe(true);
  });

  it('are not in a result: its text, links or structured content', async () => {
    const { turn, wire } = turnTools();
    const output = await call(turn, wire, { key: 'k', mode: 'fast' });
    expect(JSON.stringify(output)).toContain('value of k');
    expect(clean(output)).toBe(true);
    const structured = await call(turn, 'mcp_hostile_structured', {});
    expect(JSON.stringify(structured)).toContain('fine');
    expect(clean(structured)).toBe(true);
  });

  it('are not in an error: an isError result, a thrown error, a failed call', async () => {
    const { turn } = turnTools();
    for (const name of ['mcp_hostile_refuse', 'mcp_hostile_throw']) {
      const error = await call(turn, name, {}).then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message).toMatch(/refused|thrown/);
      expect(clean(error?.message)).toBe(true);
    }
    const failed = await manager.call('hostile', `missing${HIDDEN}`, {}, { timeoutMs: 5000 }).then(
      () => null,
      (e: Error) => e,
    );
    expect(failed).not.toBeNull();
    expect(clean(failed?.message)).toBe(true);
  });

  it('are not in a served skill\'s "frontmatter differs" error', async () => {
    await until(() => served.snapshot().skills.find((s) => s.name === 'team:notes'));
    const skill = served.snapshot().skills.find((s) => s.name === 'team:notes')!;
    const origin = skill.origin as { kind: 'mcp'; files: { fetch(rel: string): Promise<unknown> } };
    const result = (await origin.files.fetch('SKILL.md')) as { ok: boolean; error?: string };
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/frontmatter/);
    expect(result.error).toContain('Team notes.');
    expect(clean(result.error)).toBe(true);
  });
});
