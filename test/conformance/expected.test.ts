/**
 * How a conformance run is judged (expected.ts): a required scenario must pass, a not-applicable or pending one
 * that starts passing must be taken off its list (that is how pending is flipped to required), a check can be
 * excused alone, and a scenario that did not run or an entry that names none is a problem too.
 */
import { describe, expect, it } from 'vitest';
import { type Check, entryFor, judge } from './expected';

const ok = (id: string): Check => ({ id, status: 'SUCCESS' });
const bad = (id: string, errorMessage = 'broken'): Check => ({ id, status: 'FAILURE', errorMessage });
const none = { notApplicable: {}, pending: {} };

describe('judge', () => {
  it('passes a scenario whose checks pass, and fails a required one with its failing checks', () => {
    const results = new Map([
      ['initialize', [ok('a'), { id: 'w', status: 'WARNING' }]],
      ['tools_call', [ok('a'), bad('tool-add-numbers', 'no call')]],
    ]);
    const { rows, problems } = judge(['initialize', 'tools_call'], results, none);
    expect(rows.map((r) => [r.scenario, r.verdict])).toEqual([
      ['initialize', 'pass'],
      ['tools_call', 'fail'],
    ]);
    expect(problems).toEqual(['tools_call: tool-add-numbers failed: no call']);
  });

  it('a listed scenario that did not run is a problem, and so is an entry naming no scenario', () => {
    const { problems } = judge(['initialize'], new Map(), { notApplicable: { 'no-such': 'x' }, pending: {} });
    expect(problems).toEqual([
      'no-such: expected.ts names no scenario of the suite',
      'initialize: did not run (no checks.json)',
    ]);
  });

  it('a pending scenario may fail; once it passes its line must go (pending becomes required)', () => {
    const expected = { notApplicable: {}, pending: { 'auth/*': '#33 OAuth', 'elicit-x': '#33 elicitation' } };
    const failing = judge(
      ['auth/a', 'elicit-x'],
      new Map([
        ['auth/a', [bad('c')]],
        ['elicit-x', [bad('c')]],
      ]),
      expected,
    );
    expect(failing.problems).toEqual([]);
    expect(failing.rows.map((r) => r.verdict)).toEqual(['pending', 'pending']);
    const passing = judge(
      ['auth/a', 'elicit-x'],
      new Map([
        ['auth/a', [ok('c')]],
        ['elicit-x', [bad('c')]],
      ]),
      expected,
    );
    expect(passing.problems).toEqual(['auth/a: pending but passes; delete its pending line in expected.ts']);
  });

  it('not applicable: a whole scenario, or one check with the rest required; either must still fail', () => {
    const expected = { notApplicable: { 'tools-list': 'no tools', 'caching:tools-hints': 'no tools' }, pending: {} };
    const results = new Map([
      ['tools-list', [bad('tools-list')]],
      ['caching', [ok('resources-hints'), bad('tools-hints')]],
    ]);
    expect(judge(['tools-list', 'caching'], results, expected).problems).toEqual([]);
    results.set('caching', [bad('resources-hints'), bad('tools-hints')]);
    expect(judge(['tools-list', 'caching'], results, expected).problems).toEqual([
      'caching: resources-hints failed: broken',
    ]);
    results.set('caching', [ok('resources-hints'), ok('tools-hints')]);
    results.set('tools-list', [ok('tools-list')]);
    expect(judge(['tools-list', 'caching'], results, expected).problems).toEqual([
      'tools-list: listed as not applicable but passes; take it off the list',
      'caching:tools-hints: listed as not applicable but it does not fail; take it off the list',
    ]);
  });

  it('an exact entry wins over a prefix one', () => {
    const list = { 'auth/*': 'pending', 'auth/dpop': 'extension' };
    expect(entryFor(list, 'auth/dpop')).toBe('extension');
    expect(entryFor(list, 'auth/metadata-default')).toBe('pending');
    expect(entryFor(list, 'authx')).toBeUndefined();
  });
});
