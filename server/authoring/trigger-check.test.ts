import type { LanguageModelV4 } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { createOfflineModel } from '../offline-model/model';
import { renderCatalog } from '../skills/catalog/catalog';
import { createMatcher } from '../skills/catalog/match';
import { descriptionHash, runTriggerCheck, scores } from './trigger-check';

const SKILLS = [
  { name: 'csv-to-json', description: 'Converts CSV or TSV tables into JSON arrays of objects.' },
  { name: 'commit-message', description: 'Writes a conventional commit message from a staged git diff.' },
];

const input = (prompts: Array<{ text: string; shouldTrigger: boolean }>, runs = 2) => ({
  model: createOfflineModel(),
  catalog: renderCatalog(SKILLS),
  matcher: createMatcher(SKILLS),
  skill: SKILLS[0]!,
  prompts,
  runs,
});

describe('runTriggerCheck', () => {
  it('runs each prompt n times against the offline model and once against the matcher', async () => {
    const report = await runTriggerCheck(
      input([
        { text: 'Convert this CSV table to JSON please', shouldTrigger: true },
        { text: 'Write a commit message for my staged diff', shouldTrigger: false },
        { text: 'What is the capital of France?', shouldTrigger: false },
      ]),
    );
    expect(report.results.map((r) => [r.modelTriggered, r.runs, r.matcherTriggered])).toEqual([
      [2, 2, true],
      [0, 2, false],
      [0, 2, false],
    ]);
    expect(report.model).toEqual({ precision: 1, recall: 1 });
    expect(report.matcher).toEqual({ precision: 1, recall: 1 });
    expect(report.descriptionHash).toBe(descriptionHash(SKILLS[0]!.description));
  });

  it('counts a model that never activates as zero recall, and never executes the tool', async () => {
    let calls = 0;
    const base = createOfflineModel() as LanguageModelV4;
    const silent: LanguageModelV4 = {
      ...base,
      doGenerate: async (options) => {
        calls++;
        return base.doGenerate({ ...options, toolChoice: { type: 'none' } });
      },
    };
    const report = await runTriggerCheck({
      ...input([{ text: 'Convert this CSV table to JSON please', shouldTrigger: true }], 3),
      model: silent,
    });
    expect(calls).toBe(3);
    expect(report.model).toEqual({ precision: null, recall: 0 });
  });
});

describe('scores', () => {
  it('are precision and recall over all runs', () => {
    expect(
      scores([
        { triggered: 3, total: 4, wanted: true },
        { triggered: 1, total: 4, wanted: false },
      ]),
    ).toEqual({ precision: 0.75, recall: 0.75 });
    expect(scores([{ triggered: 0, total: 2, wanted: false }])).toEqual({ precision: null, recall: null });
  });
});
