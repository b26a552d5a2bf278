import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../config';
import { loadSkill } from '../skills/load/skill-file';
import { readQueriesFile, splitOf } from './queries-file';

const fixture = (name: string) => ({ name, dir: path.join(import.meta.dirname, 'fixtures', name) });

describe('readQueriesFile', () => {
  it('reads the Agent Skills shape, with an optional split', async () => {
    expect(await readQueriesFile(fixture('queries-valid'))).toEqual({
      present: true,
      queries: [
        { text: 'Fill in this PDF form', shouldTrigger: true },
        { text: 'Make a Word document from my notes', shouldTrigger: false, split: 'validation' },
      ],
      problems: [],
    });
  });

  it('names each bad entry and keeps the good ones', async () => {
    const file = await readQueriesFile(fixture('queries-bad-entries'));
    expect(file.queries).toEqual([{ text: 'Merge these two PDFs', shouldTrigger: true }]);
    expect(file.problems).toEqual([
      'entry 2: query is empty',
      'entry 3: should_trigger must be true or false',
      'entry 4: split must be "train" or "validation"',
      'entry 5: unknown field "weight"',
      'entry 6: must be an object { "query": "...", "should_trigger": true }',
      'entry 7: the same query as an earlier entry',
    ]);
  });

  it('reports a file that is not JSON, and no file as absent (not a problem)', async () => {
    const bad = await readQueriesFile(fixture('queries-not-json'));
    expect(bad.queries).toEqual([]);
    expect(bad.problems).toHaveLength(1);
    expect(bad.problems[0]).toMatch(/^evals\/trigger-queries\.json is not JSON: /);
    expect(await readQueriesFile(fixture('queries-absent'))).toEqual({ present: false, queries: [], problems: [] });
  });

  it('never changes how the skill loads: a bad file gives the skill no diagnostic', async () => {
    for (const name of ['queries-bad-entries', 'queries-not-json']) {
      const { dir } = fixture(name);
      const loaded = await loadSkill(dir, {
        root: path.dirname(dir),
        scope: 'project',
        relDir: name,
        limits: DEFAULT_LIMITS,
      });
      expect(loaded).toMatchObject({ skill: { name, diagnostics: [] } });
    }
  });
});

describe('splitOf', () => {
  it('keeps a given split, else splits about 60/40 by a hash of the query, the same every time', () => {
    expect(splitOf({ text: 'anything', split: 'validation' })).toBe('validation');
    const texts = Array.from({ length: 400 }, (_, i) => `query number ${i}`);
    const train = texts.filter((text) => splitOf({ text }) === 'train').length;
    expect(train / texts.length).toBeGreaterThan(0.5);
    expect(train / texts.length).toBeLessThan(0.7);
    expect(texts.map((text) => splitOf({ text }))).toEqual(texts.map((text) => splitOf({ text })));
  });
});
