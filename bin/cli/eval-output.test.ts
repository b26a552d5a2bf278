import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OutputEvalReport } from '../../server/evals/output';
import { isUsageError } from './command';
import { evalOutputCommand, exitCodeFor, formatOutputReport } from './eval-output';

const fixtures = path.resolve(import.meta.dirname, '../../server/evals/fixtures');

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

const arm = (which: 'with' | 'without', passed: number, total: number) => ({
  arm: which,
  passed,
  total,
  durationMs: 1500,
  tokens: 10,
  cases: [{ id: 'a', passed, total }],
});

const report = (withPassed: number): OutputEvalReport => ({
  skill: 'stamp',
  contentHash: 'abcdef0123456789',
  model: 'offline',
  runsPerCase: 1,
  cases: [{ id: 'a', prompt: '/stamp $ x' }],
  problems: [],
  arms: [arm('with', withPassed, 1), arm('without', 0, 1)],
  runs: [],
  earlier: null,
});

describe('eval output', () => {
  it('exits 0 only when the eval finished and every with-skill run passed', () => {
    expect(exitCodeFor({ status: 'done', report: report(1) })).toBe(0);
    expect(exitCodeFor({ status: 'done', report: report(0) })).toBe(1);
    expect(exitCodeFor({ status: 'stopped', report: report(1) })).toBe(1);
  });

  it('prints the arms side by side per case', () => {
    const text = formatOutputReport(report(1));
    expect(text).toMatch(/^case\s+with the skill\s+without the skill$/m);
    expect(text).toMatch(/^a\s+1\/1\s+0\/1$/m);
    expect(text).toMatch(/overall\s+1\/1 \(100%\)\s+0\/1 \(0%\)/);
  });

  it('exits 2 for a skill without cases, and refuses a bad --runs as a usage error', async () => {
    const a = io();
    expect(await evalOutputCommand.run([path.join(fixtures, 'skills-output', 'other')], a.io)).toBe(2);
    expect(a.err.join('')).toContain('Skill "other" has no evals/evals.json');
    await expect(
      evalOutputCommand.run(['--runs', '0', path.join(fixtures, 'skills-output', 'stamp')], io().io),
    ).rejects.toSatisfy(isUsageError);
  });
});
