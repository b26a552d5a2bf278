import type { LanguageModelV4 } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { startReplayServer } from '../../test/model/replay-server';
import { compatibleModel } from '../model/provider';
import { createOfflineModel } from '../offline-model/model';
import { renderCatalog } from '../skills/catalog/catalog';
import { createMatcher } from '../skills/catalog/match';
import { descriptionHash, passes, runTriggerCheck, scores } from './trigger';

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
    expect(report.results.map((r) => [r.rate, r.passed])).toEqual([
      [1, true],
      [0, true],
      [0, true],
    ]);
    expect(report.passed).toBe(true);
  });

  it('names the skill that won when this one lost, and "none" as null', async () => {
    const report = await runTriggerCheck(
      input(
        [
          { text: 'Write a commit message for my staged diff', shouldTrigger: true },
          { text: 'What is the capital of France?', shouldTrigger: true },
        ],
        3,
      ),
    );
    expect(report.results.map((r) => [r.modelTriggered, r.rate, r.passed, r.others])).toEqual([
      [0, 0, false, [{ name: 'commit-message', runs: 3 }]],
      [0, 0, false, [{ name: null, runs: 3 }]],
    ]);
    expect(report.passed).toBe(false);
    expect(report.model).toEqual({ precision: null, recall: 0 });
  });

  it('counts rates over runs of a real provider call (a compatible endpoint answering 2 of 3 times for the skill)', async () => {
    let call = 0;
    const activation = (name: string) => ({
      json: {
        id: `chatcmpl-${call}`,
        object: 'chat.completion',
        created: 1763712000,
        model: 'replay-mini',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: `call_${call}`,
                  type: 'function',
                  function: { name: 'skills_activate', arguments: JSON.stringify({ name }) },
                },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      },
    });
    // Each call's choice is fixed by its order: the 3rd run of the query picks the other skill.
    const replay = await startReplayServer(() =>
      ++call % 3 === 0 ? activation('commit-message') : activation('csv-to-json'),
    );
    try {
      const report = await runTriggerCheck({
        ...input([{ text: 'Turn my spreadsheet export into JSON', shouldTrigger: true }], 3),
        model: compatibleModel('replay-mini', `${replay.origin}/v1`),
        concurrency: 1,
      });
      const [result] = report.results;
      expect([result?.modelTriggered, result?.runs, result?.passed]).toEqual([2, 3, true]);
      expect(result?.rate).toBeCloseTo(2 / 3);
      expect(result?.others).toEqual([{ name: 'commit-message', runs: 1 }]);
      expect(report.model).toEqual({ precision: 1, recall: 2 / 3 });
      // The model was sent the catalog and the activation tool, and nothing ran it.
      const sent = JSON.stringify(replay.received[0]?.body);
      expect(sent).toContain('csv-to-json');
      expect(sent).toContain('skills_activate');
      expect(replay.received).toHaveLength(3);
    } finally {
      await replay.close();
    }
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

describe('passes', () => {
  it('holds a should-trigger query to a rate of at least the threshold, a should-not one to at most it', () => {
    expect([passes(true, 2 / 3), passes(true, 1 / 3), passes(false, 1 / 3), passes(false, 2 / 3)]).toEqual([
      true,
      false,
      true,
      false,
    ]);
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
