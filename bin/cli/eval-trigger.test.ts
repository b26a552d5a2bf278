import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { isUsageError } from './command';
import { evalCommand } from './eval';

const project = path.resolve(import.meta.dirname, '../..');

async function run(args: string[]) {
  let out = '';
  let err = '';
  const io = {
    out: (t: string) => {
      out += t;
    },
    err: (t: string) => {
      err += t;
    },
  };
  const code = await evalCommand.run(args, io);
  return { code, out, err };
}

beforeEach(() => {
  // The offline model, the project's own skills, no scan cache written anywhere.
  vi.stubEnv('OPENAI_API_KEY', '');
  vi.stubEnv('OPENAI_BASE_URL', '');
  vi.stubEnv('SKILLCHAT_SCAN_CACHE', 'off');
  vi.stubEnv('SKILLCHAT_SKILL_ROOTS', path.join(project, '.skills'));
});

describe('skills eval trigger', () => {
  it('exits 0 when every carried query passes, naming the skill that won each near-miss', async () => {
    const { code, out } = await run(['trigger', path.join(project, '.skills/pdf'), '--runs', '2']);
    expect(code).toBe(0);
    expect(out).toContain('Skill pdf, model Offline model (built-in), 2 runs per query');
    expect(out).toContain(
      'ok      0/2  should not  Accept the tracked changes in my Word document  [instead: docx 2/2]',
    );
    expect(out).toContain('10 of 10 passed');
  });

  it('exits 1 when a query misses its expectation, and --json carries the report', async () => {
    const { code, out } = await run(['trigger', path.join(project, '.skills/xlsx'), '--runs', '1', '--json']);
    expect(code).toBe(1);
    const report = JSON.parse(out);
    const failed = report.results.filter((r: { passed: boolean }) => !r.passed);
    expect(failed).toMatchObject([
      { text: 'Format the header row of data.xlsx bold and freeze it', others: [{ name: 'csv-to-json', runs: 1 }] },
    ]);
    expect(report.modelLabel).toBe('Offline model (built-in)');
  });

  it('exits 2 on a bad queries file or none, and on bad options', async () => {
    const bad = await run(['trigger', path.join(project, 'server/evals/fixtures/queries-bad-entries')]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('  - entry 2: query is empty\n');
    const none = await run(['trigger', path.join(project, 'server/evals/fixtures/queries-absent')]);
    expect([none.code, none.err]).toEqual([2, 'Error: queries-absent has no evals/trigger-queries.json\n']);
    await expect(run(['trigger', path.join(project, '.skills/pdf'), '--runs', '0'])).rejects.toSatisfy(isUsageError);
  });
});
