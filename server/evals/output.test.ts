/**
 * Output evals over the real turn: the app as the server opens it (SQLite file, the fixture skills, the offline
 * model, the real sandbox). The `stamp` skill's script makes the case pass; without the skill `/stamp` is refused,
 * nothing is made, and the report says exactly that.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../test/until';
import { type App, createApp } from '../app';
import { runChatTurn, turnDeps } from '../chat/turn';
import { loadConfig } from '../config';
import { LOCAL_USER_ID } from '../db/local-user';
import { bwrapAvailability } from '../sandbox/select';
import { runningOutputEval, startOutputEval, stopOutputEval, storedOutputEvals } from './output-admin';

const appDir = path.resolve(import.meta.dirname, '../..');
const RUNTIME = process.env.SKILLCHAT_RUNTIME_DIR ?? path.join(appDir, 'data', 'runtime');
const ready = (await bwrapAvailability(100_000)).ok;

let tmp: string;
let app: App;

beforeAll(async () => {
  if (!ready) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-evals-'));
  // A copy: the last test edits the skill to make another version.
  fs.cpSync(path.join(import.meta.dirname, 'fixtures', 'skills-output'), path.join(tmp, 'skills'), { recursive: true });
  const config = loadConfig({
    appDir,
    home: path.join(tmp, 'home'),
    env: {
      SKILLCHAT_DB: path.join(tmp, 'chat.db'),
      SKILLCHAT_SKILL_ROOTS: path.join(tmp, 'skills'),
      SKILLCHAT_RUNTIME_DIR: RUNTIME,
      SKILLCHAT_WATCH: '0',
    },
  });
  app = await createApp(config, { env: {} });
});

afterAll(async () => {
  if (!ready) return;
  await app.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf(!ready)('output evals', () => {
  it('a case the skill makes pass fails without it, and the report says exactly that', async () => {
    const started = await startOutputEval(app, 'stamp', { userId: LOCAL_USER_ID, runs: 1 });
    const ended = await started.done;
    expect(ended.status).toBe('done');
    const { report } = ended;
    expect(report.arms.map((a) => [a.arm, a.passed, a.total])).toEqual([
      ['with', 2, 2],
      ['without', 0, 2],
    ]);
    expect(report.arms[0]!.cases).toEqual([
      { id: 'stamps-the-note', passed: 1, total: 1 },
      { id: 'stamps-after-a-pause', passed: 1, total: 1 },
    ]);
    const without = report.runs.find((r) => r.arm === 'without' && r.caseId === 'stamps-the-note')!;
    expect(without.checks.filter((c) => !c.passed).map((c) => [c.kind, c.detail])).toEqual([
      ['files_exist', 'stamped.txt was not made'],
      ['file_contains', 'stamped.txt was not made'],
      ['command', expect.stringMatching(/^exited [12]/)],
    ]);
    expect(report.arms[0]!.tokens).toBeGreaterThan(0);
    expect(report.arms[0]!.durationMs).toBeGreaterThan(0);

    // A passed run's scratch chat is gone; a failed one is kept, titled, its transcript the refused `/stamp`.
    const store = app.store.forUser(LOCAL_USER_ID);
    const passed = report.runs.find((r) => r.arm === 'with')!;
    expect(passed.chatId).toBeNull();
    const kept = (await store.loadChatView(without.chatId!))!;
    expect(kept.chat.title).toBe('Eval · stamp · stamps-the-note · without the skill');
    expect(kept.messages.map((m) => m.role)).toEqual(['user', 'assistant']);

    // Stored per content hash: the page and the next run read it back.
    const [stored] = await storedOutputEvals(app, 'stamp');
    expect(stored).toMatchObject({ id: started.id, status: 'done', contentHash: report.contentHash });
    expect(stored!.report.arms).toEqual(report.arms);
  });

  it('runs through the queue: a person chatting meanwhile is not blocked, a second eval is refused, Stop ends it', async () => {
    const started = await startOutputEval(app, 'stamp', { userId: LOCAL_USER_ID, runs: 2 });
    expect(runningOutputEval(app, LOCAL_USER_ID)).toBe('stamp');
    await expect(startOutputEval(app, 'stamp', { userId: LOCAL_USER_ID, runs: 1 })).rejects.toMatchObject({
      code: 'conflict:evals',
    });

    // Another person's chat answers while the eval's turn is still running.
    const bob = app.store.forUser('bob');
    await bob.createChat({ id: 'bob-chat' });
    const response = await runChatTurn(
      {
        chatId: 'bob-chat',
        trigger: 'submit-message',
        message: { id: 'b1', role: 'user', parts: [{ type: 'text', text: 'hello there' }] },
      },
      await turnDeps(app, 'bob', 'bob-chat'),
    );
    await response.text();
    await app.turns.wait('bob-chat');
    expect((await bob.loadChatView('bob-chat'))!.messages.at(-1)!.metadata?.status).toBeUndefined();
    expect(runningOutputEval(app, LOCAL_USER_ID)).toBe('stamp');

    // Stop once the first run has finished: the rest is left unrun and the run is stored as stopped.
    await until(
      async () => ((await storedOutputEvals(app, 'stamp'))[0]!.report.runs.length >= 1 ? true : undefined),
      20_000,
    );
    expect(stopOutputEval(app, LOCAL_USER_ID)).toBe(true);
    const ended = await started.done;
    expect(ended.status).toBe('stopped');
    expect(ended.report.runs.length).toBeLessThan(8);
    expect(runningOutputEval(app, LOCAL_USER_ID)).toBeNull();
    expect(stopOutputEval(app, LOCAL_USER_ID)).toBe(false);
  });

  it('a run of an edited skill is compared with the last run of the version before', async () => {
    const [first] = (await storedOutputEvals(app, 'stamp')).filter((r) => r.status === 'done');
    fs.appendFileSync(path.join(tmp, 'skills', 'stamp', 'SKILL.md'), '\nThe file keeps its name.\n');
    await app.registry.rescan();
    const ended = await (await startOutputEval(app, 'stamp', { userId: LOCAL_USER_ID, runs: 1 })).done;
    expect(ended.contentHash).not.toBe(first!.contentHash);
    expect(ended.report.earlier).toMatchObject({
      runId: first!.id,
      contentHash: first!.contentHash,
      arm: first!.report.arms.find((a) => a.arm === 'with'),
    });
  });
});
