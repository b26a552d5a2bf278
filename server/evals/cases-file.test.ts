import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCasesFile, readCasesFile } from './cases-file';

const fixture = (name: string) => path.join(import.meta.dirname, 'fixtures', name);

describe('readCasesFile', () => {
  it('reads the skill-creator shape with checks', async () => {
    const file = (await readCasesFile(fixture('cases-good')))!;
    expect(file.problems).toEqual([]);
    expect(file.skillName).toBe('docx');
    expect(file.cases).toEqual([
      {
        id: '1',
        prompt: '/docx $ soffice --headless --convert-to pdf letter.docx',
        files: ['letter.docx'],
        expectedOutput: 'letter.pdf beside the letter',
        checks: { filesExist: ['letter.pdf'], fileContains: [], command: 'test -s letter.pdf' },
      },
      {
        id: 'rubric-only',
        prompt: 'Summarise the letter',
        files: [],
        checks: { filesExist: [], fileContains: [], rubric: 'The summary names the sender' },
      },
    ]);
  });

  it('keeps the good entries and names each bad one', async () => {
    const file = (await readCasesFile(fixture('cases-bad-entry')))!;
    expect(file.cases.map((c) => c.id)).toEqual(['fine']);
    expect(file.problems).toHaveLength(5);
    expect(file.problems[0]).toMatch(/^evals\[0\] "no-prompt": prompt: /);
    expect(file.problems[1]).toMatch(/^evals\[1\] "escapes": files\.0: must be a relative path inside the folder/);
    expect(file.problems[2]).toBe(
      'evals[2] "no-checks": give at least one check (files_exist, file_contains, command, rubric)',
    );
    expect(file.problems[3]).toBe('evals[4] "fine": the id "fine" is used twice');
    expect(file.problems[4]).toMatch(/^evals\[5\]: /);
  });

  it('reports a file that is not JSON as one problem, with no cases', async () => {
    const file = (await readCasesFile(fixture('cases-not-json')))!;
    expect(file.cases).toEqual([]);
    expect(file.problems[0]).toMatch(/^evals\/evals\.json is not JSON/);
  });

  it('is null for a skill without the file', async () => {
    expect(await readCasesFile(fixture('cases-none'))).toBeNull();
  });

  it('refuses a file of the wrong shape', () => {
    expect(parseCasesFile('{"evals": 3}').problems[0]).toMatch(/must be \{ "skill_name"/);
    expect(parseCasesFile('[]').cases).toEqual([]);
  });
});
