/**
 * A chat turn end to end on the server: real skills from `.skills/`, the offline model, a fresh SQLite file.
 * What the browser would receive is read from the response; what a reload would show is read from the store.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessResolver } from '../access/resolver';
import { loadConfig } from '../config';
import {
  acquireTurnLease,
  type Database,
  getMessageRecords,
  getTurnLease,
  listScriptRuns,
  openDb,
  recoverInterruptedAnswers,
  releaseTurnLease,
  sqliteDatabase,
} from '../db';
import { createOfflineModel } from '../offline-model/model';
import { discoverSkills } from '../skills/discovery/discovery';
import { loadSkill } from '../skills/load/skill-file';
import type { Skill } from '../skills/types';
import { createDbChatStore } from './db-store';
import { createTurnLeases } from './running/leases';
import type { ChatStore } from './store';
import { createRunningTurns, runChatTurn, type TurnDeps } from './turn';
import type { ChatMessage } from './wire-types';

/** The turns these tests run, as the app keeps them (`app.turns`). */
const turns = createRunningTurns();

const appDir = path.resolve(import.meta.dirname, '../..');
let tmp: string;
let store: ChatStore;
let db: Database;
let skills: Skill[];

function deps(overrides: Partial<TurnDeps> = {}): TurnDeps {
  const config = loadConfig({ appDir, env: { SKILLCHAT_DB: path.join(tmp, 'chat.db') }, home: path.join(tmp, 'home') });
  return {
    store,
    turns,
    config,
    skills: { skills },
    model: { model: createOfflineModel(), label: 'Offline model (built-in)' },
    access: createAccessResolver(config),
    ...overrides,
  };
}

let seq = 0;
function userMessage(text: string): ChatMessage {
  seq += 1;
  return { id: `u${seq}`, role: 'user', parts: [{ type: 'text', text }] };
}

async function send(chatId: string, text: string, d = deps()) {
  const response = await runChatTurn({ chatId, trigger: 'submit-message', message: userMessage(text) }, d);
  const wire = await response.text();
  await turns.wait(chatId);
  const view = (await store.loadChatView(chatId))!;
  return { wire, view, answer: view.messages.at(-1)! };
}

function toolParts(message: ChatMessage, type: string) {
  return message.parts.filter((p) => p.type === type) as Array<{
    type: string;
    state: string;
    input?: { name?: string; path?: string };
    output?: { content?: string; instructions?: string; alreadyActive?: boolean };
    errorText?: string;
  }>;
}

function text(message: ChatMessage): string {
  return message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-turn-'));
  db = sqliteDatabase(openDb(path.join(tmp, 'chat.db')));
  store = createDbChatStore(db);
  const result = await discoverSkills([{ path: path.join(appDir, '.skills'), scope: 'project', kind: 'app' }], {
    limits: loadConfig({ appDir, env: {} }).limits,
  });
  skills = result.skills;
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('runChatTurn', () => {
  it('explicit /skill with a request: forced activation, resource reads with their markers, then an answer', async () => {
    const { chat } = await store.createChat({ id: 'explicit' });
    const { answer, view } = await send(
      chat.id,
      '/skills-system-validation validate that skills.activate and skills.readResource work',
    );
    const [activation] = toolParts(answer, 'tool-skills_activate');
    expect(activation?.state).toBe('output-available');
    expect(activation?.input?.name).toBe('skills-system-validation');
    const reads = toolParts(answer, 'tool-skills_readResource');
    const byPath = new Map(reads.map((r) => [r.input?.path, r]));
    expect(byPath.get('references/REFERENCE.md')?.output?.content).toContain('SKILLCHAT_CONFORMANCE_REFERENCE_v1');
    expect(byPath.get('assets/fixture.json')?.output?.content).toContain('"fixture_id": "skills-system-validation"');
    expect(byPath.get('scripts/echo.sh')?.output?.content).toContain('SKILLCHAT_SKILLS_SCRIPT_OK');
    expect(text(answer)).toContain('SKILLCHAT_CONFORMANCE_REFERENCE_v1');
    expect(view.activations).toEqual([
      expect.objectContaining({ skillName: 'skills-system-validation', count: 1, lastHow: 'explicit' }),
    ]);
    expect(view.chat.title).toContain('skills-system-validation');
    // Both sides of the exchange carry the time they were written.
    expect(view.messages.at(-2)!.metadata?.createdAt).toBeTypeOf('number');
    expect(answer.metadata?.createdAt).toBeGreaterThanOrEqual(view.messages.at(-2)!.metadata!.createdAt!);
  });

  it('bare /skill activates on the server without a model call, once per chat', async () => {
    const { chat } = await store.createChat({ id: 'bare' });
    const throwingModel = createOfflineModel({
      createMatcher: () => {
        throw new Error('the model must not be called for a bare /skill');
      },
    });
    const first = await send(chat.id, '/csv-to-json', deps({ model: { model: throwingModel, label: 'x' } }));
    const [card] = toolParts(first.answer, 'tool-skills_activate');
    expect(card?.state).toBe('output-available');
    expect(card?.output?.instructions).toMatch(/csv/i);
    const second = await send(chat.id, '/csv-to-json', deps({ model: { model: throwingModel, label: 'x' } }));
    expect(toolParts(second.answer, 'tool-skills_activate')[0]?.output?.alreadyActive).toBe(true);
    expect(second.view.activations).toEqual([expect.objectContaining({ skillName: 'csv-to-json', count: 1 })]);
  });

  it('/a /b with a request: both activated as explicit, one after the other, then an answer', async () => {
    const { chat } = await store.createChat({ id: 'multi' });
    const { answer, view } = await send(chat.id, '/csv-to-json /skills-system-validation convert a.csv to json');
    const names = toolParts(answer, 'tool-skills_activate').map((p) => [p.input?.name, p.state]);
    expect(names.slice(0, 2)).toEqual([
      ['csv-to-json', 'output-available'],
      ['skills-system-validation', 'output-available'],
    ]);
    expect(view.activations.map((a) => [a.skillName, a.lastHow]).sort()).toEqual([
      ['csv-to-json', 'explicit'],
      ['skills-system-validation', 'explicit'],
    ]);
  });

  it('bare /a /b activates both on the server', async () => {
    const { chat } = await store.createChat({ id: 'multi-bare' });
    const { answer } = await send(chat.id, '/csv-to-json /skills-system-validation');
    expect(toolParts(answer, 'tool-skills_activate').map((p) => [p.input?.name, p.state])).toEqual([
      ['csv-to-json', 'output-available'],
      ['skills-system-validation', 'output-available'],
    ]);
  });

  it('/name args fills $ARGUMENTS and $1 in the instructions', async () => {
    const dir = path.join(tmp, 'args', 'fix-issue');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'SKILL.md'),
      '---\nname: fix-issue\ndescription: Fixes a numbered issue in the tracker.\nargument-hint: "[number]"\n---\n\nFix issue $1 (asked: $ARGUMENTS).\n',
    );
    const loaded = await loadSkill(dir, {
      root: path.dirname(dir),
      scope: 'project',
      relDir: 'fix-issue',
      limits: loadConfig({ appDir, env: {} }).limits,
    });
    const d = deps({ skills: { skills: [...skills, loaded.skill!] } });
    const { chat } = await store.createChat({ id: 'arguments' });
    const { answer } = await send(chat.id, '/fix-issue 42 "login page"', d);
    const [card] = toolParts(answer, 'tool-skills_activate');
    expect(card?.output?.instructions).toContain('Fix issue 42 (asked: 42 "login page").');
  });

  it('refuses reads outside the skill folder with safe errors and no file content', async () => {
    const { chat } = await store.createChat({ id: 'escape' });
    await send(chat.id, '/skills-system-validation');
    const { answer, wire } = await send(
      chat.id,
      'read ../SKILL.md and /etc/passwd and references/../../../../etc/passwd',
    );
    const reads = toolParts(answer, 'tool-skills_readResource');
    expect(reads.map((r) => r.input?.path).sort()).toEqual(
      ['../SKILL.md', '/etc/passwd', 'references/../../../../etc/passwd'].sort(),
    );
    for (const read of reads) {
      expect(read.state).toBe('output-error');
      expect(read.errorText).toBeTruthy();
    }
    expect(wire).not.toContain('root:x:0:0');
    expect(wire).not.toContain(appDir);
    expect(wire).not.toContain(tmp);
  });

  it('runs a skill script in the sandbox when asked, and logs the run', async () => {
    const { chat } = await store.createChat({ id: 'script' });
    const { answer } = await send(chat.id, '/skills-system-validation run scripts/echo.sh');
    const [run] = toolParts(answer, 'tool-skills_runScript') as Array<{
      state: string;
      output?: { stdout: string; exitCode: number };
    }>;
    expect(run?.state).toBe('output-available');
    expect(run?.output?.stdout).toBe('SKILLCHAT_SKILLS_SCRIPT_OK\n');
    expect(run?.output?.exitCode).toBe(0);
    expect(toolParts(answer, 'tool-skills_readResource')).toEqual([]);
    expect(text(answer)).toContain('SKILLCHAT_SKILLS_SCRIPT_OK');
    expect((await listScriptRuns(10, db))[0]).toMatchObject({
      chatId: 'script',
      skillName: 'skills-system-validation',
      script: 'scripts/echo.sh',
      exitCode: 0,
    });
  });

  it('does not offer the script tool before a skill with scripts is active', async () => {
    const { chat } = await store.createChat({ id: 'no-script' });
    const { answer } = await send(chat.id, 'run scripts/echo.sh');
    expect(toolParts(answer, 'tool-skills_runScript')).toEqual([]);
  });

  it('a message that matches no skill gets an answer without skill tools', async () => {
    const { chat } = await store.createChat({ id: 'plain' });
    const { answer } = await send(chat.id, "hello there, what's the weather like?");
    expect(answer.parts.some((p) => p.type.startsWith('tool-'))).toBe(false);
    expect(text(answer).length).toBeGreaterThan(0);
  });

  it('a message that clearly matches a skill activates it (model activation)', async () => {
    const { chat } = await store.createChat({ id: 'match' });
    const { answer, view } = await send(chat.id, 'Please write a commit message for my staged changes');
    expect(toolParts(answer, 'tool-skills_activate')[0]?.input?.name).toBe('commit-message');
    expect(view.activations[0]).toEqual(expect.objectContaining({ skillName: 'commit-message', lastHow: 'model' }));
  });

  it('a skill the person switched off: not activated by the model, /name refused with how to switch it on', async () => {
    const personal = { person: 'alice', switchedOff: new Set(['commit-message']) };
    const { chat } = await store.createChat({ id: 'switched-off' });
    const { answer, view } = await send(
      chat.id,
      'Please write a commit message for my staged changes',
      deps({ personal }),
    );
    expect(toolParts(answer, 'tool-skills_activate')).toEqual([]);
    expect(view.activations).toEqual([]);
    const refused = await send(chat.id, '/commit-message fix the typo', deps({ personal }));
    const [card] = toolParts(refused.answer, 'tool-skills_activate');
    expect(card?.state).toBe('output-error');
    expect(card?.errorText).toContain('You switched off skill "commit-message"');
    expect(card?.errorText).toContain('Manage skills');
    // Someone else (no switched-off skills) still gets it.
    const { chat: other } = await store.createChat({ id: 'switched-on' });
    const theirs = await send(other.id, 'Please write a commit message for my staged changes');
    expect(toolParts(theirs.answer, 'tool-skills_activate')[0]?.input?.name).toBe('commit-message');
  });

  it('with no skills: no catalog, no tools', async () => {
    const { chat } = await store.createChat({ id: 'none' });
    const { answer } = await send(chat.id, 'validate that the skills system works', deps({ skills: { skills: [] } }));
    expect(answer.parts.some((p) => p.type.startsWith('tool-'))).toBe(false);
  });

  it('rejects unknown chats and duplicate message ids, changing nothing', async () => {
    await expect(
      runChatTurn({ chatId: 'missing', trigger: 'submit-message', message: userMessage('hi') }, deps()),
    ).rejects.toMatchObject({
      status: 404,
    });
    const { chat } = await store.createChat({ id: 'dupe' });
    const message = userMessage('hello');
    await (await runChatTurn({ chatId: chat.id, trigger: 'submit-message', message }, deps())).text();
    await turns.wait(chat.id);
    const before = (await store.getMessages(chat.id)).length;
    await expect(runChatTurn({ chatId: chat.id, trigger: 'submit-message', message }, deps())).rejects.toMatchObject({
      status: 409,
    });
    expect(await store.getMessages(chat.id)).toHaveLength(before);
  });

  it('regenerate replaces the last answer', async () => {
    const { chat } = await store.createChat({ id: 'regen' });
    const { answer } = await send(chat.id, 'hello');
    await (await runChatTurn({ chatId: chat.id, trigger: 'regenerate-message' }, deps())).text();
    await turns.wait(chat.id);
    const messages = await store.getMessages(chat.id);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[1]!.id).not.toBe(answer.id);
    // The previous answer is kept as version 1 of 2, and can be shown again.
    expect((await store.loadChatView(chat.id))!.versions).toEqual([{ parentId: messages[0]!.id, index: 2, count: 2 }]);
    await store.switchVersion(chat.id, messages[0]!.id, 1);
    expect((await store.getMessages(chat.id)).map((m) => m.id)).toEqual([messages[0]!.id, answer.id]);
  });

  it('an edited message replaces the later answers, which stay as version 1/2', async () => {
    const { chat } = await store.createChat({ id: 'edit' });
    const first = await send(chat.id, 'hello');
    await send(chat.id, 'and more');
    const edited: ChatMessage = { ...userMessage('hello again'), id: first.view.messages[0]!.id };
    const response = await runChatTurn(
      { chatId: chat.id, trigger: 'submit-message', message: edited, messageId: edited.id },
      deps(),
    );
    await response.text();
    await turns.wait(chat.id);
    const view = (await store.loadChatView(chat.id))!;
    expect(view.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(text(view.messages[0]!)).toBe('hello again');
    expect(view.versions).toEqual([{ parentId: '', index: 2, count: 2 }]);
    await store.switchVersion(chat.id, '', 1);
    const old = await store.getMessages(chat.id);
    expect(old).toHaveLength(4);
    expect(text(old[0]!)).toBe('hello');
    // Without `messageId` the same id is still a resend, refused.
    await expect(
      runChatTurn({ chatId: chat.id, trigger: 'submit-message', message: { ...edited, id: old[0]!.id } }, deps()),
    ).rejects.toMatchObject({ code: 'conflict:chat' });
  });

  it('regenerate after a model activation answers from the instructions, re-attached as <skill_content>', async () => {
    const { chat } = await store.createChat({ id: 'regen-skill' });
    const first = await send(chat.id, 'Please write a commit message for my staged changes');
    expect(toolParts(first.answer, 'tool-skills_activate')[0]?.output?.instructions).toContain('# Commit messages');
    expect(text(first.answer)).toContain('# Commit messages');
    await (await runChatTurn({ chatId: chat.id, trigger: 'regenerate-message' }, deps())).text();
    await turns.wait(chat.id);
    const again = (await store.getMessages(chat.id)).at(-1)!;
    // The activation card went with the old answer: the instructions now come from the re-attached block only.
    expect(toolParts(again, 'tool-skills_activate')).toEqual([]);
    expect(text(again)).toContain('# Commit messages');
    expect(text(again)).toContain('references/CONVENTIONAL-COMMITS.md');
    const later = await send(chat.id, 'and another commit message for a typo fix');
    expect(text(later.answer)).toContain('# Commit messages');
  });

  it('a chat longer than the context window leaves old turns out, keeps skill instructions, marks the answer', async () => {
    const { chat } = await store.createChat({ id: 'compaction' });
    const small = deps({
      model: { model: createOfflineModel(), label: 'Offline model (built-in)', contextWindow: 8_000 },
    });
    await send(chat.id, 'Please write a commit message for my staged changes', small);
    const filler = Array.from({ length: 900 }, (_, i) => `filler${i}`).join(' ');
    const first = await send(chat.id, `note one: ${filler}`, small);
    expect(first.answer.parts.some((p) => p.type === 'data-compaction')).toBe(false);
    await send(chat.id, `note two: ${filler}`, small);
    const { answer } = await send(chat.id, 'one more commit message please', small);
    const marker = answer.parts.find((p) => p.type === 'data-compaction') as { data: { dropped: number } } | undefined;
    expect(marker?.data.dropped).toBeGreaterThan(0);
    // The activation turn was left out; its instructions still reach the model whole.
    expect(text(answer)).toContain('# Commit messages');
    expect(await store.getMessages(chat.id)).toHaveLength(8);
  });

  /** Starts a slowly streamed answer in the chat and returns once its first text has arrived. */
  async function startSlowAnswer(chatId: string): Promise<void> {
    const slow = deps({ model: { model: createOfflineModel({ chunkDelayMs: 30 }), label: 'slow' } });
    const response = await runChatTurn(
      { chatId, trigger: 'submit-message', message: userMessage('hello, tell me about yourself') },
      slow,
    );
    const reader = response.body!.getReader();
    let received = '';
    while (!received.includes('text-delta')) received += new TextDecoder().decode((await reader.read()).value);
  }

  it('Stop aborts the answer and keeps what was said', async () => {
    const { chat } = await store.createChat({ id: 'stop' });
    await startSlowAnswer(chat.id);
    expect(turns.stop(chat.id)).toBe(true);
    await turns.wait(chat.id);
    const records = await getMessageRecords(chat.id, db);
    const answer = records.at(-1)!;
    expect(answer.status).toBe('aborted');
    expect(text(answer.message as ChatMessage).length).toBeGreaterThan(0);
    expect((await store.loadChatView(chat.id))!.messages.at(-1)!.metadata).toMatchObject({ status: 'aborted' });
  });

  it('two instances: a live lease elsewhere is a 409 here; a Stop pressed there stops the answer here, stored as aborted', async () => {
    const { chat } = await store.createChat({ id: 'two-instances' });
    // Another instance's turn: its lease row, no slot in this process.
    expect(await acquireTurnLease(db, { chatId: chat.id, instanceId: 'other', expiryMs: 30_000 })).toBe(true);
    await expect(
      runChatTurn({ chatId: chat.id, trigger: 'submit-message', message: userMessage('hello') }, deps()),
    ).rejects.toMatchObject({ status: 409 });
    expect(await store.getMessages(chat.id)).toEqual([]);
    await releaseTurnLease(db, chat.id, 'other');

    await startSlowAnswer(chat.id);
    const lease = await getTurnLease(db, chat.id);
    expect(lease?.instanceId).toBe(store.leases!.instanceId);
    expect(lease?.messageId).toBeTruthy();
    // Stop on the other instance flags the lease; this instance's next tick aborts the turn.
    const other = createTurnLeases(db, { instanceId: 'other', timings: store.leases!.timings });
    expect(await other.requestStop(chat.id)).toBe(true);
    await store.leases!.tick();
    await turns.wait(chat.id);
    expect((await getMessageRecords(chat.id, db)).at(-1)?.status).toBe('aborted');
    // The turn's end deleted its lease: the chat is free for the next message, on any instance.
    expect(await getTurnLease(db, chat.id)).toBeNull();
    await other.close();
  });

  it('an answer left streaming by a crash loads as interrupted', async () => {
    const { chat } = await store.createChat({ id: 'crash' });
    await store.saveUserMessage(chat.id, userMessage('hello'));
    await store.startAssistantMessage(chat.id, 'crashed-answer');
    expect((await store.loadChatView(chat.id))!.messages.at(-1)!.metadata?.status).toBeUndefined();
    await recoverInterruptedAnswers(db);
    expect((await store.loadChatView(chat.id))!.messages.at(-1)!.metadata).toMatchObject({ status: 'interrupted' });
  });

  it('a closed tab does not lose the answer', async () => {
    const { chat } = await store.createChat({ id: 'closed-tab' });
    const slow = deps({ model: { model: createOfflineModel({ chunkDelayMs: 5 }), label: 'slow' } });
    const response = await runChatTurn(
      { chatId: chat.id, trigger: 'submit-message', message: userMessage('hello, tell me about yourself') },
      slow,
    );
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    await turns.wait(chat.id);
    const answer = (await getMessageRecords(chat.id, db)).at(-1)!;
    expect(answer.status).toBe('complete');
    expect(text(answer.message as ChatMessage)).toMatch(/offline/i);
  });
});
