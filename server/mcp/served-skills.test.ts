/**
 * MCP servers as a source of skills, end to end on the server: a real MCP server written with the
 * official SDK serves skills (the skills extension); the app's connection manager, the served-skills source in the
 * registry next to the bundled `.skills`, and `runChatTurn` with the offline model list, activate, read and run
 * them; tampered files are refused; "Always allow" is bound to the served resources; a hanging server holds nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANG_SERVER } from '../../test/mcp/servers';
import { startSkillsHttpServer, type TestSkillsServer } from '../../test/mcp/skills-server';
import { runTurnToEnd } from '../../test/turn-deps';
import { until } from '../../test/until';
import { createAccessResolver } from '../access/resolver';
import { createDbChatStore } from '../chat/db-store';
import type { ChatStore } from '../chat/store';
import type { TurnDeps } from '../chat/turn';
import { createRunningTurns } from '../chat/turn';
import type { ChatMessage } from '../chat/wire-types';
import { type AppConfig, loadConfig, type Permission } from '../config';
import { type Database, openDb, sqliteDatabase } from '../db';
import { createOfflineModel } from '../offline-model/model';
import { servedSkillsDir } from '../skills/discovery/own-folders';
import { createSkillRegistry, type SkillRegistry } from '../skills/registry';
import { readSkillResource } from '../skills/resources/resources';
import { NO_STANDING_GRANT } from '../tools/names';
import { resolveMcpConfig } from './config';
import { createMcpManager, type McpManager } from './manager';
import { createServedSkills, type ServedSkills } from './skills';

/** The turns these tests run, as the app keeps them (`app.turns`). */
const turns = createRunningTurns();

const appDir = path.resolve(import.meta.dirname, '../..');
let tmp: string;
let db: Database;
let store: ChatStore;
let team: TestSkillsServer;
let manager: McpManager;
let served: ServedSkills;
let registry: SkillRegistry;
let config: AppConfig;

const PDF_SKILL = `---
name: pdf
description: Served PDF notes from the team server. Use when asked about the team's PDF conventions.
allowed-tools: Bash(rm:*)
---
# Team PDF conventions

Read references/GUIDE.md for the house style.
`;

const LEDGER_SKILL = `---
name: ledger
description: Reconciles ledger balances. Use when asked to reconcile a ledger.
---
# Ledger

Compare the balances.
`;

const WEATHER_SKILL = `---
name: weather
description: Today's forecast from a live source. Use when asked about the weather forecast.
---
# Weather

Always fresh.
`;

const RUNNER_SKILL = `---
name: runner
description: Runs the nightly job. Use when asked to run the nightly job.
---
# Runner

Run scripts/run.sh.
`;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-served-'));
  db = sqliteDatabase(openDb(path.join(tmp, 'chat.db')));
  store = createDbChatStore(db);
  team = await startSkillsHttpServer([
    {
      path: 'pdf',
      files: {
        'SKILL.md': PDF_SKILL,
        'references/GUIDE.md': 'SERVED_GUIDE_OK: margins 2 cm.\n',
        'scripts/hello.sh':
          '#!/bin/bash\necho "SERVED_SCRIPT_OK from $(basename "$SKILL_DIR")"\ncat /skill/references/GUIDE.md\n',
      },
    },
    { path: 'ledger', files: { 'SKILL.md': LEDGER_SKILL, 'references/RULES.md': 'rule one\n' } },
    {
      path: 'tampered',
      files: { 'SKILL.md': LEDGER_SKILL.replaceAll('ledger', 'tampered'), 'references/DATA.md': 'honest\n' },
    },
    { path: 'weather', files: { 'SKILL.md': WEATHER_SKILL }, dynamic: true },
    { path: 'runner', files: { 'SKILL.md': RUNNER_SKILL, 'scripts/run.sh': '#!/bin/bash\necho RUNNER_V1\n' } },
  ]);
  team.tamper('tampered', 'references/DATA.md', 'evil\n');
  config = loadConfig({ appDir, env: { SKILLCHAT_DB: path.join(tmp, 'chat.db') }, home: path.join(tmp, 'h') });
  const mcp = {
    ...resolveMcpConfig({
      mcpServers: { team: { url: team.url }, stuck: { command: process.execPath, args: [HANG_SERVER] } },
    }),
    connectTimeoutMs: 60_000,
  };
  manager = createMcpManager(mcp, { env: { PATH: process.env.PATH }, appDir, log: () => {} });
  served = createServedSkills(manager, { dir: servedSkillsDir(config), limits: config.limits, timeoutMs: 10_000 });
  registry = createSkillRegistry(config);
  registry.addSource(served);
  manager.start();
  await until(async () => ((await registry.get('team:pdf')) ? true : undefined));
});

afterAll(async () => {
  served.close();
  await manager.close();
  await team.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function deps(rules: Record<string, Permission> = {}): Promise<TurnDeps> {
  const withRules: AppConfig = { ...config, permissions: { ...config.permissions, rules } };
  return {
    store,
    turns,
    config: withRules,
    skills: await registry.current(),
    model: { model: createOfflineModel(), label: 'Offline model (built-in)' },
    access: createAccessResolver(withRules),
  };
}

async function post(chatId: string, body: Parameters<typeof runTurnToEnd>[1], d: TurnDeps) {
  return (await runTurnToEnd(chatId, body, d)).messages.at(-1)!;
}

type Part = {
  type: string;
  state: string;
  input?: { name?: string; path?: string };
  output?: { content?: string; instructions?: string; location?: string; resources?: string[]; stdout?: string };
  errorText?: string;
  approval?: { id: string };
};
const parts = (m: ChatMessage, type: string) => m.parts.filter((p) => p.type === type) as unknown as Part[];

describe('a served skill', () => {
  it('is listed under its qualified name, next to the folder skill of the same name, which it does not shadow', async () => {
    const scan = await registry.current();
    const names = scan.skills.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['pdf', 'team:pdf', 'team:ledger', 'team:weather']));
    // The bundled .skills/pdf is still `pdf`.
    expect((await registry.get('pdf'))?.origin).toBeUndefined();
    expect((await registry.get('team:pdf'))?.origin).toMatchObject({
      kind: 'mcp',
      server: 'team',
      uri: 'skill://pdf/SKILL.md',
    });
    // The collision is shown, not resolved by shadowing.
    expect(scan.collisions).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'pdf', winner: (await registry.get('pdf'))!.dir })]),
    );
    expect(scan.diagnostics.find((d) => d.code === 'name-collision' && d.message.includes('/team:pdf'))).toBeTruthy();
    // A root-like entry for the server, its copies outside every discovery root.
    expect(scan.roots.find((r) => r.kind === 'mcp')).toMatchObject({
      path: path.join(servedSkillsDir(config), 'team'),
    });
    expect(scan.diagnostics.find((d) => d.code === 'mcp-skill-dynamic')?.message).toContain('skill://weather/SKILL.md');
    // Nothing was fetched to list them.
    expect(team.reads).toEqual([]);
    // The slash menu and search rank them by the qualified name as typed (GET /api/skills?q=team:pdf).
    const matcher = await registry.matcher();
    expect(matcher.rank('team:pdf', 5)[0]?.name).toBe('team:pdf');
    expect(matcher.rank('team:', 10).map((r) => r.name)).toEqual(expect.arrayContaining(['team:pdf', 'team:ledger']));
  });

  it('is activated with /team:pdf, its reference read from the server (verified), and its script run from the copy', async () => {
    const { chat } = await store.createChat({ id: 'served-activate' });
    const answer = await post(chat.id, { text: '/team:pdf read references/GUIDE.md' }, await deps());
    const [activation] = parts(answer, 'tool-skills_activate');
    expect(activation?.state).toBe('output-available');
    expect(activation?.output?.instructions).toContain('Team PDF conventions');
    expect(activation?.output?.location).toBe('mcp:team/skill://pdf/SKILL.md');
    expect(activation?.output?.resources).toEqual(['references/GUIDE.md', 'scripts/hello.sh']);
    const [read] = parts(answer, 'tool-skills_readResource');
    expect(read?.output?.content).toContain('SERVED_GUIDE_OK');
    const skill = (await registry.get('team:pdf'))!;
    expect(skill.dir.startsWith(path.join(servedSkillsDir(config), 'team'))).toBe(true);
    expect(fs.readFileSync(path.join(skill.dir, 'references/GUIDE.md'), 'utf8')).toContain('SERVED_GUIDE_OK');

    const ran = await post(chat.id, { text: '/team:pdf run scripts/hello.sh' }, await deps());
    const [run] = parts(ran, 'tool-skills_runScript');
    expect(run?.errorText).toBeUndefined();
    expect(run?.output?.stdout).toContain('SERVED_SCRIPT_OK');
    expect(run?.output?.stdout).toContain('SERVED_GUIDE_OK');
  });

  it('a file whose bytes do not match the listed digest is refused with a clear error, and never written', async () => {
    const skill = (await registry.get('team:tampered'))!;
    const result = await readSkillResource(skill, 'references/DATA.md');
    expect(result).toMatchObject({ ok: false, code: 'unreadable' });
    expect(!result.ok && result.error).toMatch(/failed verification \((digest|size)/);
    expect(fs.existsSync(path.join(skill.dir, 'references/DATA.md'))).toBe(false);
    // A file the entry does not list is not fetched at all.
    const unlisted = await readSkillResource(skill, 'references/OTHER.md');
    expect(unlisted).toMatchObject({ ok: false, code: 'not-found' });
  });
});

describe('consent for served skills', () => {
  const rules: Record<string, Permission> = { 'team:*': 'ask' };

  it('"Always allow" is bound to the resources: a changed file on the server asks again', async () => {
    const first = await post('ledger-1', { text: 'please reconcile the ledger balances' }, await created('ledger-1'));
    const asked = parts(first, 'tool-skills_activate')[0]!;
    expect(asked.state).toBe('approval-requested');
    const allowed = await post(
      'ledger-1',
      { approvals: [{ approvalId: asked.approval!.id, approved: true, always: true }] },
      await deps(rules),
    );
    expect(parts(allowed, 'tool-skills_activate')[0]?.state).toBe('output-available');

    const again = await post('ledger-2', { text: 'please reconcile the ledger balances' }, await created('ledger-2'));
    expect(parts(again, 'tool-skills_activate')[0]?.state).toBe('output-available');

    const before = (await registry.get('team:ledger'))!.origin!.resourcesHash;
    await team.setFile('ledger', 'references/RULES.md', 'rule one, changed\n');
    await served.refresh('team');
    expect((await registry.get('team:ledger'))!.origin!.resourcesHash).not.toBe(before);
    const changed = await post('ledger-3', { text: 'please reconcile the ledger balances' }, await created('ledger-3'));
    expect(parts(changed, 'tool-skills_activate')[0]?.state).toBe('approval-requested');
  });

  it('an activation is pinned to the listing it was approved under: a changed script is refused in that chat', async () => {
    const first = await post('runner-1', { text: 'please run the nightly job' }, await created('runner-1'));
    const asked = parts(first, 'tool-skills_activate')[0]!;
    expect(asked.state).toBe('approval-requested');
    await post(
      'runner-1',
      { approvals: [{ approvalId: asked.approval!.id, approved: true, always: true }] },
      await deps(rules),
    );
    const ran = await post('runner-1', { text: 'run scripts/run.sh' }, await deps(rules));
    expect(parts(ran, 'tool-skills_runScript')[0]?.output?.stdout).toContain('RUNNER_V1');

    await team.setFile('runner', 'scripts/run.sh', '#!/bin/bash\necho RUNNER_V2\n');
    await served.refresh('team');
    const changed = await post('runner-1', { text: 'run scripts/run.sh' }, await deps(rules));
    const [run] = parts(changed, 'tool-skills_runScript');
    expect(run?.state).toBe('output-error');
    expect(run?.errorText).toMatch(
      /The MCP server "team" changed the files of skill "team:runner" since it was activated in this chat.*Activate it again/,
    );
    expect(JSON.stringify(changed)).not.toContain('RUNNER_V2');
    // A new chat asks, as the grant was for the old listing.
    const fresh = await post('runner-2', { text: 'please run the nightly job' }, await created('runner-2'));
    expect(parts(fresh, 'tool-skills_activate')[0]?.state).toBe('approval-requested');
  });

  it('a dynamic skill never gets a standing grant', async () => {
    const first = await post('weather-1', { text: 'what is the weather forecast today' }, await created('weather-1'));
    const asked = parts(first, 'tool-skills_activate')[0]!;
    expect(asked.state).toBe('approval-requested');
    // The card leaves "Always allow" out (components/tools/skill-cards.tsx).
    expect(JSON.stringify(asked)).toContain(NO_STANDING_GRANT.replaceAll('"', '\\"'));
    await post(
      'weather-1',
      { approvals: [{ approvalId: asked.approval!.id, approved: true, always: true }] },
      await deps(rules),
    );
    const again = await post('weather-2', { text: 'what is the weather forecast today' }, await created('weather-2'));
    expect(parts(again, 'tool-skills_activate')[0]?.state).toBe('approval-requested');
  });

  async function created(id: string): Promise<TurnDeps> {
    await store.createChat({ id });
    return deps(rules);
  }
});

describe('a server that hangs', () => {
  it('holds neither the registry nor a turn', async () => {
    expect(manager.list().find((s) => s.label === 'stuck')?.status).toBe('connecting');
    const started = Date.now();
    await registry.current();
    const { chat } = await store.createChat({ id: 'hang' });
    const answer = await post(chat.id, { text: '/team:ledger' }, await deps());
    expect(parts(answer, 'tool-skills_activate')[0]?.state).toBe('output-available');
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
