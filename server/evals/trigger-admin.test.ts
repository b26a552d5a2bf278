import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { skillContentHash } from '../access/content-hash';
import { createAccessResolver } from '../access/resolver';
import { loadConfig } from '../config';
import { openDb, sqliteDatabase } from '../db';
import type { AppError } from '../errors';
import { createOfflineModel } from '../offline-model/model';
import { createSkillRegistry } from '../skills/registry';
import { descriptionHash } from './trigger';
import { runStoredTriggerCheck, storedTriggerChecks } from './trigger-admin';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trigger-admin-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const appDir = path.resolve(import.meta.dirname, '../..');

function host() {
  const config = loadConfig({
    appDir,
    home: path.join(tmp, 'home'),
    env: { SKILLCHAT_SKILL_ROOTS: path.join(appDir, '.skills'), SKILLCHAT_WATCH: '0' },
  });
  return {
    config,
    registry: createSkillRegistry(config),
    access: createAccessResolver(config),
    model: { model: createOfflineModel(), label: 'Offline model (built-in)' },
    db: sqliteDatabase(openDb(path.join(tmp, 'db.sqlite'))),
  };
}

describe('runStoredTriggerCheck', () => {
  it('runs against the chat catalog and stores the run with its date and description hash, newest first', async () => {
    const h = host();
    const prompts = [
      { text: 'Convert this CSV to JSON please', shouldTrigger: true },
      { text: 'Tell me a joke about cats', shouldTrigger: false },
    ];
    const first = await runStoredTriggerCheck(h, 'csv-to-json', prompts, 2);
    expect(first.report.results.map((r) => [r.modelTriggered, r.matcherTriggered])).toEqual([
      [2, true],
      [0, false],
    ]);
    expect(first.report.model).toEqual({ precision: 1, recall: 1 });
    const skill = await h.registry.get('csv-to-json');
    expect(first.descriptionHash).toBe(descriptionHash(skill!.description));
    const second = await runStoredTriggerCheck(h, 'csv-to-json', prompts.slice(0, 1), 1);
    const stored = await storedTriggerChecks(h, 'csv-to-json');
    expect(stored.map((s) => s.id)).toEqual([second.id, first.id]);
    expect(stored[1]?.report).toEqual(first.report);
    expect(stored[0]?.model).toBe('Offline model (built-in)');
    expect(await storedTriggerChecks(h, 'commit-message')).toEqual([]);
    expect(stored[0]?.contentHash).toBe(await skillContentHash(skill!));
  });

  it("runs the skill's carried queries first, then the typed ones it lacks, among every installed skill", async () => {
    const h = host();
    const run = await runStoredTriggerCheck(
      h,
      'pdf',
      [
        { text: 'Merge chapter1.pdf and chapter2.pdf into one file', shouldTrigger: true },
        { text: 'Compress this PDF for email', shouldTrigger: true },
      ],
      1,
    );
    const { results } = run.report;
    expect(results.map((r) => r.from)).toEqual([...Array(10).fill('file'), 'typed']);
    const word = results.find((r) => r.text === 'Accept the tracked changes in my Word document');
    expect(word).toMatchObject({
      shouldTrigger: false,
      modelTriggered: 0,
      passed: true,
      others: [{ name: 'docx', runs: 1 }],
    });
    expect(run.fileProblems).toEqual([]);
  });

  it('refuses unknown skills, no prompts and bad run counts', async () => {
    const h = host();
    const code = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: AppError) => e.code,
      );
    expect(await code(runStoredTriggerCheck(h, 'nope', [{ text: 'x', shouldTrigger: true }], 1))).toBe(
      'not_found:skill',
    );
    // csv-to-json carries no queries file: a blank typed query leaves nothing to run.
    expect(await code(runStoredTriggerCheck(h, 'csv-to-json', [{ text: '  ', shouldTrigger: true }], 1))).toBe(
      'bad_request:trigger-check',
    );
    expect(await code(runStoredTriggerCheck(h, 'csv-to-json', [{ text: 'x', shouldTrigger: true }], 0))).toBe(
      'bad_request:trigger-check',
    );
  });
});
