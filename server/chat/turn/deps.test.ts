/**
 * What a chat request's turn runs with (deps.ts), as app/api/chat/route.ts builds it: the person's store and
 * switches, the chat's model, and use counts read only when a chat's catalog is built.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccessResolver } from '../../access/resolver';
import { loadConfig } from '../../config';
import { type Database, openDb, setSkillDisabled, sqliteDatabase } from '../../db';
import { LOCAL_USER_ID } from '../../db/local-user';
import { installPersonalSkill } from '../../install/personal';
import { createOfflineModel } from '../../offline-model/model';
import { createMatcher } from '../../skills/catalog/match';
import { discoverSkills } from '../../skills/discovery/discovery';
import type { DiscoveryResult } from '../../skills/types';
import { createDbChatStores } from '../db-store';
import type { ChatStores } from '../store';
import type { ChatMessage } from '../wire-types';
import { createRunningTurns, runChatTurn, type TurnApp, turnDeps } from '.';

const turns = createRunningTurns();

const appDir = path.resolve(import.meta.dirname, '../../..');
let tmp: string;
let db: Database;
let scan: DiscoveryResult;
let usageReads = 0;

function appWith(stores: ChatStores): TurnApp {
  const config = loadConfig({ appDir, env: { SKILLCHAT_DB: path.join(tmp, 'chat.db') }, home: path.join(tmp, 'home') });
  const matcher = createMatcher(scan.skills);
  const choice = { id: 'offline:builtin', label: 'Offline model', provider: 'offline' as const };
  return {
    config,
    turns,
    registry: {
      current: async () => scan,
      matcher: async () => matcher,
      matcherWith: async (extra) => (extra.length ? createMatcher([...scan.skills, ...extra]) : matcher),
    },
    // Counts each person's reads of the use counts.
    store: {
      forUser: (userId) => {
        const store = stores.forUser(userId);
        return {
          ...store,
          usageCounts: () => {
            usageReads += 1;
            return store.usageCounts();
          },
        };
      },
    },
    models: { choose: async () => ({ choice: { ...choice, model: createOfflineModel() } }) },
    db,
    access: createAccessResolver(config),
  };
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-turn-deps-'));
  db = sqliteDatabase(openDb(path.join(tmp, 'chat.db')));
  scan = await discoverSkills([{ path: path.join(appDir, '.skills'), scope: 'project', kind: 'app' }], {
    limits: loadConfig({ appDir, env: {} }).limits,
  });
});

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('turnDeps', () => {
  it("carries the person's store and switches, and reads use counts only when the chat's catalog is built", async () => {
    const stores = createDbChatStores(db);
    const app = appWith(stores);
    const owner = LOCAL_USER_ID;
    await stores.forUser(owner).createChat({ id: 'usage-read-once' });
    const [switched] = scan.skills;
    await setSkillDisabled(owner, switched!.name, true, db);

    usageReads = 0;
    const deps = await turnDeps(app, owner, 'usage-read-once');
    expect(deps.personal?.switchedOff).toEqual(new Set([switched!.name]));
    expect(deps.model.provider).toBe('offline');
    expect(usageReads).toBe(0);

    for (const [i, text] of ['Hello there', 'And again'].entries()) {
      const message: ChatMessage = { id: `u${i}`, role: 'user', parts: [{ type: 'text', text }] };
      const turn = await turnDeps(app, owner, 'usage-read-once');
      await (await runChatTurn({ chatId: 'usage-read-once', trigger: 'submit-message', message }, turn)).text();
      await turns.wait('usage-read-once');
    }
    // The first turn built the chat's catalog; the second reused it, and with it the order the counts gave.
    expect(usageReads).toBe(1);
  });

  it("reads the chat once, for its model and the turn's check: another person's chat is a 404", async () => {
    const stores = createDbChatStores(db);
    const app = appWith(stores);
    await stores.forUser(LOCAL_USER_ID).createChat({ id: 'read-once' });
    let chatReads = 0;
    const counted: TurnApp = {
      ...app,
      store: {
        forUser: (userId) => {
          const store = app.store.forUser(userId);
          return {
            ...store,
            getChat: (id) => {
              chatReads += 1;
              return store.getChat(id);
            },
          };
        },
      },
    };
    const message: ChatMessage = { id: 'once-u', role: 'user', parts: [{ type: 'text', text: 'Hello there' }] };
    const deps = await turnDeps(counted, LOCAL_USER_ID, 'read-once');
    await (await runChatTurn({ chatId: 'read-once', trigger: 'submit-message', message }, deps)).text();
    await turns.wait('read-once');
    expect(chatReads).toBe(1);

    const stranger = await turnDeps(counted, 'someone-else', 'read-once');
    expect(stranger.chat).toBeNull();
    await expect(
      runChatTurn({ chatId: 'read-once', trigger: 'submit-message', message: { ...message, id: 'x' } }, stranger),
    ).rejects.toMatchObject({ status: 404 });
  });

  it("a person's own skill is in their turns alone: `/name` activates it for them, another person's model never sees it", async () => {
    const stores = createDbChatStores(db);
    const app = appWith(stores);
    const files = [
      {
        path: 'my-notes/SKILL.md',
        bytes: Buffer.from('---\nname: my-notes\ndescription: Keeps my notes.\n---\n\nNote it.\n'),
      },
    ];
    await installPersonalSkill(app, LOCAL_USER_ID, { kind: 'files', files }, 'install');

    await stores.forUser(LOCAL_USER_ID).createChat({ id: 'personal-mine' });
    const mine = await turnDeps(app, LOCAL_USER_ID, 'personal-mine');
    expect(mine.skills.skills.map((s) => s.name)).toContain('my-notes');
    const message: ChatMessage = { id: 'pm-u', role: 'user', parts: [{ type: 'text', text: '/my-notes jot this' }] };
    await (await runChatTurn({ chatId: 'personal-mine', trigger: 'submit-message', message }, mine)).text();
    await turns.wait('personal-mine');
    expect((await stores.forUser(LOCAL_USER_ID).getActivations('personal-mine')).map((a) => a.name)).toEqual([
      'my-notes',
    ]);

    const theirs = await turnDeps(app, 'someone-else', 'personal-theirs');
    expect(theirs.skills.skills.map((s) => s.name)).not.toContain('my-notes');
    expect(theirs.skills.matcher?.rank('my notes', 10).map((m) => m.name)).not.toContain('my-notes');
  });
});
