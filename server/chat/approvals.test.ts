/**
 * Consent end to end on the server: a skill under `ask` waits for the person; Deny tells the model and records no
 * activation; "always allow" holds until SKILL.md changes; `/name` is consent; `deny` hides the skill entirely.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTurnToEnd } from '../../test/turn-deps';
import { createAccessResolver } from '../access/resolver';
import { type AppConfig, loadConfig, type Permission } from '../config';
import { acquireTurnLease, type Database, listDecisions, openDb, releaseTurnLease, sqliteDatabase } from '../db';
import { createOfflineModel } from '../offline-model/model';
import { discoverSkills } from '../skills/discovery/discovery';
import { createDbChatStore } from './db-store';
import type { ChatStore } from './store';
import { createRunningTurns, runChatTurn, type TurnDeps } from './turn';
import type { ChatMessage } from './wire-types';

/** The turns these tests run, as the app keeps them (`app.turns`). */
const turns = createRunningTurns();

const appDir = path.resolve(import.meta.dirname, '../..');
const SKILL = 'skills-system-validation';
let tmp: string;
let root: string;
let store: ChatStore;
let db: Database;

async function deps(permission: Permission): Promise<TurnDeps> {
  const base = loadConfig({ appDir, env: { SKILLCHAT_DB: path.join(tmp, 'db.sqlite') }, home: path.join(tmp, 'home') });
  const config: AppConfig = { ...base, permissions: { rules: { [SKILL]: permission } } };
  const { skills } = await discoverSkills([{ path: root, scope: 'project', kind: 'configured' }], {
    limits: config.limits,
  });
  return {
    store,
    turns,
    config,
    skills: { skills },
    model: { model: createOfflineModel(), label: 'offline' },
    access: createAccessResolver(config),
  };
}

const post = runTurnToEnd;

type Part = { type: string; state?: string; approval?: { id: string }; errorText?: string };
const activation = (m: ChatMessage) => m.parts.find((p) => p.type === 'tool-skills_activate') as Part | undefined;
const text = (m: ChatMessage) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-approvals-'));
  root = path.join(tmp, 'skills');
  fs.cpSync(path.join(appDir, '.skills', SKILL), path.join(root, SKILL), { recursive: true });
  db = sqliteDatabase(openDb(path.join(tmp, 'db.sqlite')));
  store = createDbChatStore(db);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('skills under ask', () => {
  it('the activation waits for approval; Deny tells the model and records nothing', async () => {
    const d = await deps('ask');
    const { chat } = await store.createChat({ id: 'deny' });
    let view = await post(chat.id, { text: 'please validate that the skills system works' }, d);
    const waiting = activation(view.messages.at(-1)!)!;
    expect(waiting.state).toBe('approval-requested');
    expect(view.activations).toEqual([]);

    view = await post(chat.id, { approvals: [{ approvalId: waiting.approval!.id, approved: false }] }, d);
    const answer = view.messages.at(-1)!;
    expect(view.messages).toHaveLength(2); // the answer continued in place
    expect(activation(answer)?.state).toBe('output-denied');
    expect(text(answer)).toMatch(/not approved|denied/i);
    expect(view.activations).toEqual([]);
  });

  it('Allow loads the skill; an unknown or repeated approval is refused', async () => {
    const d = await deps('ask');
    const { chat } = await store.createChat({ id: 'allow' });
    let view = await post(chat.id, { text: 'please validate that the skills system works' }, d);
    const id = activation(view.messages.at(-1)!)!.approval!.id;
    await expect(
      runChatTurn(
        { chatId: chat.id, trigger: 'approval-response', approvals: [{ approvalId: 'nope', approved: true }] },
        d,
      ),
    ).rejects.toMatchObject({ status: 409 });
    view = await post(chat.id, { approvals: [{ approvalId: id, approved: true }] }, d);
    expect(activation(view.messages.at(-1)!)?.state).toBe('output-available');
    expect(text(view.messages.at(-1)!)).toContain('SKILLCHAT_CONFORMANCE_REFERENCE_v1');
    expect(view.activations).toEqual([expect.objectContaining({ skillName: SKILL, count: 1, lastHow: 'model' })]);
    await expect(
      runChatTurn(
        { chatId: chat.id, trigger: 'approval-response', approvals: [{ approvalId: id, approved: true }] },
        d,
      ),
    ).rejects.toMatchObject({ status: 409 });
  });

  it('two answers to the same approval at once: one wins, the other is a 409, and the decision is recorded once', async () => {
    const d = await deps('ask');
    const { chat } = await store.createChat({ id: 'twice-at-once' });
    const view = await post(chat.id, { text: 'please validate that the skills system works' }, d);
    const id = activation(view.messages.at(-1)!)!.approval!.id;
    const answer = () =>
      runChatTurn(
        { chatId: chat.id, trigger: 'approval-response', approvals: [{ approvalId: id, approved: true }] },
        d,
      );
    const results = await Promise.allSettled([answer(), answer()]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost[0]?.reason).toMatchObject({ status: 409 });
    await (won[0] as PromiseFulfilledResult<Response>).value.text();
    await turns.wait(chat.id);
    expect((await listDecisions(100, db)).filter((x) => x.chatId === chat.id)).toHaveLength(1);
    expect((await store.loadChatView(chat.id))!.activations).toEqual([expect.objectContaining({ count: 1 })]);
  });

  it('an approval answered while another instance holds the chat is a 409 and stays pending', async () => {
    const d = await deps('ask');
    const { chat } = await store.createChat({ id: 'approval-elsewhere' });
    const view = await post(chat.id, { text: 'please validate that the skills system works' }, d);
    const id = activation(view.messages.at(-1)!)!.approval!.id;
    // The same answer, continuing on another instance: it holds the lease.
    expect(await acquireTurnLease(db, { chatId: chat.id, instanceId: 'other', expiryMs: 30_000 })).toBe(true);
    await expect(
      runChatTurn(
        { chatId: chat.id, trigger: 'approval-response', approvals: [{ approvalId: id, approved: true }] },
        d,
      ),
    ).rejects.toMatchObject({ status: 409 });
    expect(activation((await store.getMessages(chat.id)).at(-1)!)?.state).toBe('approval-requested');
    await releaseTurnLease(db, chat.id, 'other');
    const after = await post(chat.id, { approvals: [{ approvalId: id, approved: true }] }, d);
    expect(activation(after.messages.at(-1)!)?.state).toBe('output-available');
  });

  it('the stored answer is replaced only while it is unchanged (the conditional update under the approval)', async () => {
    const d = await deps('ask');
    const { chat } = await store.createChat({ id: 'conditional' });
    const asked = (await post(chat.id, { text: 'please validate that the skills system works' }, d)).messages.at(-1)!;
    const answered = (approved: boolean): ChatMessage => ({
      ...asked,
      parts: asked.parts.map((p) =>
        p.type === 'tool-skills_activate'
          ? { ...p, state: 'approval-responded', approval: { ...(p as Part).approval!, approved } }
          : p,
      ) as ChatMessage['parts'],
    });
    expect(await store.replaceMessageIfUnchanged(chat.id, answered(true), asked.parts)).toBe(true);
    expect(await store.replaceMessageIfUnchanged(chat.id, answered(false), asked.parts)).toBe(false);
    const stored = activation((await store.loadChatView(chat.id))!.messages.at(-1)!) as Part & {
      approval: { approved?: boolean };
    };
    expect(stored.approval.approved).toBe(true);
  });

  it('"always allow" skips the prompt next time, until SKILL.md changes', async () => {
    const d = await deps('ask');
    const first = (await store.createChat({ id: 'always-1' })).chat;
    const view = await post(first.id, { text: 'please validate that the skills system works' }, d);
    const id = activation(view.messages.at(-1)!)!.approval!.id;
    await post(first.id, { approvals: [{ approvalId: id, approved: true, always: true }] }, d);

    const second = (await store.createChat({ id: 'always-2' })).chat;
    const again = await post(second.id, { text: 'please validate that the skills system works' }, d);
    expect(activation(again.messages.at(-1)!)?.state).toBe('output-available');

    fs.appendFileSync(path.join(root, SKILL, 'SKILL.md'), '\nOne more line.\n');
    const edited = await deps('ask');
    const third = (await store.createChat({ id: 'always-3' })).chat;
    const asked = await post(third.id, { text: 'please validate that the skills system works' }, edited);
    expect(activation(asked.messages.at(-1)!)?.state).toBe('approval-requested');
  });

  it('a new message while an approval waits leaves it unanswered and answers the new message', async () => {
    const d = await deps('ask');
    const { chat } = await store.createChat({ id: 'abandoned' });
    let view = await post(chat.id, { text: 'please validate that the skills system works' }, d);
    const waiting = activation(view.messages.at(-1)!)!;
    expect(waiting.state).toBe('approval-requested');
    view = await post(chat.id, { text: 'never mind, hello there' }, d);
    expect(view.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(text(view.messages.at(-1)!).length).toBeGreaterThan(0);
    expect(view.activations).toEqual([]);
    // The old prompt can no longer be answered: it is not the last answer any more.
    await expect(
      runChatTurn(
        {
          chatId: chat.id,
          trigger: 'approval-response',
          approvals: [{ approvalId: waiting.approval!.id, approved: true }],
        },
        d,
      ),
    ).rejects.toMatchObject({ status: 409 });
  });

  it('explicit /name counts as consent', async () => {
    const d = await deps('ask');
    const { chat } = await store.createChat({ id: 'explicit-consent' });
    const view = await post(chat.id, { text: `/${SKILL} validate that it works` }, d);
    expect(activation(view.messages.at(-1)!)?.state).toBe('output-available');
  });
});

describe('skills under deny', () => {
  it('are absent from the catalog and the tools the model receives', async () => {
    const base = await deps('allow');
    const other = base.skills.skills[0]!;
    const twin = { ...other, name: 'still-listed', dir: other.dir, description: 'A skill that stays listed.' };
    const d = { ...(await deps('deny')), skills: { skills: [...base.skills.skills, twin] } };
    const seen: string[] = [];
    const offline = d.model.model as LanguageModelV4;
    const spy: LanguageModelV4 = {
      ...offline,
      doStream: (options) => {
        seen.push(JSON.stringify({ prompt: options.prompt, tools: options.tools }));
        return offline.doStream(options);
      },
    };
    const { chat } = await store.createChat({ id: 'deny-catalog' });
    await post(chat.id, { text: 'hello' }, { ...d, model: { model: spy, label: 'spy' } });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.join('')).toContain('still-listed');
    expect(seen.join('')).not.toContain(SKILL);
  });

  it('are not offered to the model and /name is refused with a reason', async () => {
    const d = await deps('deny');
    const { chat } = await store.createChat({ id: 'denied' });
    let view = await post(chat.id, { text: 'please validate that the skills system works' }, d);
    expect(activation(view.messages.at(-1)!)).toBeUndefined();
    view = await post(chat.id, { text: `/${SKILL}` }, d);
    const refused = activation(view.messages.at(-1)!)!;
    expect(refused.state).toBe('output-error');
    expect(refused.errorText).toMatch(/not allowed here \(rule "skills-system-validation"\)/);
    expect(view.activations).toEqual([]);
  });
});
