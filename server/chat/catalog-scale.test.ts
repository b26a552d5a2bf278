/**
 * Many skills: the catalog stays within its budget and says how many skills it leaves out; a skill that is not
 * listed is found with skills_search and activated, by the offline model; modes change who is listed, searchable
 * and activatable.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessResolver } from '../access/resolver';
import { type AppConfig, loadConfig } from '../config';
import { openDb, sqliteDatabase } from '../db';
import { createOfflineModel } from '../offline-model/model';
import { countTokens } from '../skills/catalog/catalog';
import { discoverSkills } from '../skills/discovery/discovery';
import type { Skill } from '../skills/types';
import { activateSkill } from '../tools';
import { createDbChatStore } from './db-store';
import type { ChatStore } from './store';
import { createRunningTurns, runChatTurn, type TurnDeps } from './turn';
import type { ChatMessage } from './wire-types';

/** The turns these tests run, as the app keeps them (`app.turns`). */
const turns = createRunningTurns();

const BUDGET = 1500;
const TOPICS = ['invoice', 'poster', 'lint', 'schema', 'backup', 'calendar', 'recipe', 'audit', 'chart', 'email'];
const VERBS = ['formats', 'checks', 'drafts', 'converts', 'summarises', 'reviews'];
const RARE = 'zebra-migration-planner';

let tmp: string;
let root: string;
let store: ChatStore;
let skills: Skill[];

function writeSkill(name: string, description: string) {
  fs.mkdirSync(path.join(root, name), { recursive: true });
  fs.writeFileSync(
    path.join(root, name, 'SKILL.md'),
    `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n\nSteps.\n`,
  );
}

function config(modes: Record<string, AppConfig['skills']['modes'][string]> = {}): AppConfig {
  const base = loadConfig({
    appDir: tmp,
    env: { SKILLCHAT_DB: path.join(tmp, 'db.sqlite') },
    home: path.join(tmp, 'home'),
  });
  return { ...base, catalog: { budgetTokens: BUDGET }, skills: { modes } };
}

/** The offline model, recording the instructions and tool names of every call. */
function recordingModel() {
  const calls: Array<{ system: string; tools: string[] }> = [];
  const inner = createOfflineModel();
  const model: LanguageModelV4 = {
    ...inner,
    doStream: (options: LanguageModelV4CallOptions) => {
      calls.push({
        system: options.prompt.flatMap((m) => (m.role === 'system' ? [m.content] : [])).join('\n'),
        tools: (options.tools ?? []).map((t) => t.name),
      });
      return inner.doStream(options);
    },
  };
  return { model, calls };
}

function deps(cfg: AppConfig, model: LanguageModelV4): TurnDeps {
  return {
    store,
    turns,
    config: cfg,
    skills: { skills },
    model: { model, label: 'offline' },
    access: createAccessResolver(cfg),
  };
}

let n = 0;
async function send(chatId: string, text: string, d: TurnDeps): Promise<ChatMessage> {
  n += 1;
  const message: ChatMessage = { id: `s${n}`, role: 'user', parts: [{ type: 'text', text }] };
  await (await runChatTurn({ chatId, trigger: 'submit-message', message }, d)).text();
  await turns.wait(chatId);
  return (await store.getMessages(chatId)).at(-1)!;
}

function catalogOf(system: string): { available_skills: Array<{ name: string }>; not_listed?: number; note?: string } {
  const start = system.indexOf('{"available_skills"');
  const end = system.indexOf('\n', start);
  return JSON.parse(system.slice(start, end === -1 ? undefined : end));
}

const part = (m: ChatMessage, type: string) =>
  m.parts.find((p) => p.type === type) as
    | { state: string; input?: { name?: string }; output?: { results?: Array<{ name: string }> } }
    | undefined;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-scale-'));
  root = path.join(tmp, '.skills');
  for (let i = 0; i < 499; i++) {
    const topic = TOPICS[i % TOPICS.length]!;
    const verb = VERBS[i % VERBS.length]!;
    writeSkill(
      `${topic}-tool-${String(i).padStart(3, '0')}`,
      `${verb} ${topic} files for the team, variant ${i}. Use when working with ${topic} documents.`,
    );
  }
  writeSkill(
    RARE,
    'Plans zebra herd migrations across the savanna with waterhole stops. Use when asked about zebra migration routes.',
  );
  skills = (await discoverSkills([{ path: root, scope: 'project', kind: 'app' }], { limits: config().limits })).skills;
  store = createDbChatStore(sqliteDatabase(openDb(path.join(tmp, 'db.sqlite'))));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('500 skills under a small budget', () => {
  it('fits the budget, says how many are missing, and finds an unlisted skill by search, then activates it', async () => {
    expect(skills).toHaveLength(500);
    const { model, calls } = recordingModel();
    const d = deps(config(), model);
    const { chat } = await store.createChat({ id: 'scale' });
    await send(chat.id, 'hello there', d);
    const catalog = catalogOf(calls[0]!.system);
    const listedNames = catalog.available_skills.map((s) => s.name);
    expect(countTokens(JSON.stringify(catalog))).toBeLessThanOrEqual(BUDGET);
    expect(catalog.not_listed).toBe(500 - listedNames.length);
    expect(catalog.not_listed).toBeGreaterThan(400);
    expect(catalog.note).toMatch(/skills_search/);
    expect(listedNames).not.toContain(RARE);
    expect(calls[0]!.tools).toContain('skills_search');

    const answer = await send(chat.id, 'I need to plan a zebra migration route across the savanna', d);
    const search = part(answer, 'tool-skills_search');
    expect(search?.state).toBe('output-available');
    expect(search?.output?.results?.[0]?.name).toBe(RARE);
    const activation = part(answer, 'tool-skills_activate');
    expect(activation?.state).toBe('output-available');
    expect(activation?.input?.name).toBe(RARE);
    // The system prompt (and its catalog) stayed the same across the chat's turns: prompt caching holds.
    expect(
      new Set(
        calls.map((c) =>
          catalogOf(c.system)
            .available_skills.map((s) => s.name)
            .join(),
        ),
      ),
    ).toHaveProperty('size', 1);
  });

  it('offers no search tool and lists everything when all skills fit', async () => {
    const { model, calls } = recordingModel();
    const few = skills.slice(0, 5);
    const cfg = config();
    const d: TurnDeps = { ...deps(cfg, model), skills: { skills: few } };
    const { chat } = await store.createChat({ id: 'few' });
    await send(chat.id, 'hello', d);
    const catalog = catalogOf(calls[0]!.system);
    expect(catalog.available_skills).toHaveLength(5);
    expect(catalog.not_listed).toBeUndefined();
    expect(calls[0]!.tools).not.toContain('skills_search');
  });
});

describe('modes', () => {
  const modes = {
    'invoice-*': 'off',
    'poster-tool-001': 'pinned',
    'lint-tool-002': 'manual',
    [RARE]: 'search',
  } as const;

  it('pinned is always listed; search, manual and off never are; off is not searchable', async () => {
    const { model, calls } = recordingModel();
    const d = deps(config({ ...modes }), model);
    const { chat } = await store.createChat({ id: 'modes-catalog' });
    await send(chat.id, 'hello there', d);
    const names = catalogOf(calls[0]!.system).available_skills.map((s) => s.name);
    expect(names).toContain('poster-tool-001');
    expect(names).not.toContain(RARE);
    expect(names).not.toContain('lint-tool-002');
    expect(names.some((s) => s.startsWith('invoice-'))).toBe(false);

    const found = await send(chat.id, 'plan a zebra migration route', d);
    expect(part(found, 'tool-skills_search')?.output?.results?.[0]?.name).toBe(RARE);
    expect(part(found, 'tool-skills_activate')?.state).toBe('output-available');
    const offSearch = await send(chat.id, 'I need help with invoice documents', d);
    const results = part(offSearch, 'tool-skills_search')?.output?.results ?? [];
    expect(results.some((r) => r.name.startsWith('invoice-'))).toBe(false);
  });

  it('manual skills are refused to the model but work with /name; off skills are refused with /name', async () => {
    const { model } = recordingModel();
    const d = deps(config({ ...modes }), model);
    const { chat } = await store.createChat({ id: 'modes-manual' });
    const explicit = await send(chat.id, '/lint-tool-002', d);
    expect(part(explicit, 'tool-skills_activate')?.state).toBe('output-available');
    const manual = skills.find((s) => s.name === 'lint-tool-002')!;
    const cfg = config({ ...modes });
    const ctx = {
      skills: new Map([[manual.name, manual]]),
      access: createAccessResolver(cfg).resolveAll(skills),
      activated: new Set<string>(),
      limits: cfg.limits,
      display: { appDir: tmp, home: tmp },
      onActivated: () => {},
    };
    await expect(activateSkill(ctx, manual.name, 'model')).rejects.toThrow(/manual: only the person can invoke it/);
    const off = await send(chat.id, '/invoice-tool-000', d);
    const refused = off.parts.find((p) => p.type === 'tool-skills_activate') as { state: string; errorText?: string };
    expect(refused.state).toBe('output-error');
    expect(refused.errorText).toMatch(/turned off/);
  });
});
