/**
 * The chat's model in a turn: the chosen model answers, its label is stored with the answer (a reload shows it), a
 * model that is gone answers as the offline model with a note, and the chat's context window sizes the catalog.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessResolver } from '../access/resolver';
import { loadConfig } from '../config';
import { openDb, sqliteDatabase } from '../db';
import { createModelRegistry } from '../model/registry';
import { discoverSkills } from '../skills/discovery/discovery';
import type { Skill } from '../skills/types';
import { createDbChatStore } from './db-store';
import type { ChatStore } from './store';
import { createRunningTurns, runChatTurn } from './turn';

/** The turns these tests run, as the app keeps them (`app.turns`). */
const turns = createRunningTurns();

const appDir = path.resolve(import.meta.dirname, '../..');
let tmp: string;
let store: ChatStore;
let skills: Skill[];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-turn-model-'));
  store = createDbChatStore(sqliteDatabase(openDb(path.join(tmp, 'chat.db'))));
  skills = (
    await discoverSkills([{ path: path.join(appDir, '.skills'), scope: 'project', kind: 'app' }], {
      limits: loadConfig({ appDir, env: {} }).limits,
    })
  ).skills;
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** One turn the way the chat route runs it: the registry chooses the chat's model. */
async function turn(chatId: string, text: string) {
  const config = loadConfig({ appDir, env: { SKILLCHAT_DB: path.join(tmp, 'chat.db') }, home: path.join(tmp, 'h') });
  const models = createModelRegistry({ env: {}, ollamaOrigin: null });
  const { choice, note } = await models.choose((await store.getChat(chatId))?.model);
  const response = await runChatTurn(
    {
      chatId,
      trigger: 'submit-message',
      message: { id: `${chatId}-u`, role: 'user', parts: [{ type: 'text', text }] },
    },
    {
      store,
      turns,
      config,
      skills: { skills },
      model: note ? { ...choice, note } : choice,
      access: createAccessResolver(config),
    },
  );
  await response.text();
  await turns.wait(chatId);
  return (await store.loadChatView(chatId))!;
}

describe('the chat model in a turn', () => {
  it('stores the answering model with the answer, so a reload shows it', async () => {
    await store.createChat({ id: 'picked' });
    expect((await store.setChatModel('picked', 'offline:builtin'))?.model).toBe('offline:builtin');
    const view = await turn('picked', 'hello there');
    expect(view.chat.model).toBe('offline:builtin');
    expect(view.messages.at(-1)?.metadata).toMatchObject({ model: 'Offline model (built-in)' });
    expect(view.messages.at(-1)?.metadata?.modelNote).toBeUndefined();
  });

  it('answers with the offline model, and says so, when the picked model is not available', async () => {
    await store.createChat({ id: 'gone' });
    await store.setChatModel('gone', 'ollama:qwen3:8b');
    const answer = (await turn('gone', 'hello there')).messages.at(-1);
    expect(answer?.metadata?.model).toBe('Offline model (built-in)');
    expect(answer?.metadata?.modelNote).toMatch(/^ollama:qwen3:8b is not available now/);
  });

  it('a bare /name is answered by the server and labelled so', async () => {
    await store.createChat({ id: 'bare' });
    const answer = (await turn('bare', '/csv-to-json')).messages.at(-1);
    expect(answer?.metadata?.model).toBe('skillchat');
  });
});
