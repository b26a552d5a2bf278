import { describe, expect, it } from 'vitest';
import { findPathsInInstructions, findPathsInMessage, isPathLike, pointedFiles } from './resource-paths';

describe('findPathsInMessage', () => {
  it('finds relative, parent, absolute and bare file paths in reading order', () => {
    const text =
      'Read references/REFERENCE.md, then `assets/fixture.json`; also ../SKILL.md and /etc/passwd. And README.md?';
    expect(findPathsInMessage(text)).toEqual([
      'references/REFERENCE.md',
      'assets/fixture.json',
      '../SKILL.md',
      '/etc/passwd',
      'README.md',
    ]);
  });

  it('takes Markdown link targets, not their text', () => {
    expect(findPathsInMessage('open [the guide](references/guide.md) please')).toEqual(['references/guide.md']);
  });

  it('drops a leading /skill-name invocation but keeps other absolute paths', () => {
    const isSkillName = (n: string) => n === 'pdf';
    expect(findPathsInMessage('/pdf read scripts/run.sh', { isSkillName })).toEqual(['scripts/run.sh']);
    expect(findPathsInMessage('/etc/passwd', { isSkillName })).toEqual(['/etc/passwd']);
  });

  it('merges spellings of the same path', () => {
    expect(findPathsInMessage('./a/b.md and a//b.md and a/b.md')).toEqual(['a/b.md']);
  });

  it('ignores prose that only looks like paths', () => {
    const text = 'e.g. use Node.js and/or Next.js, see https://agentskills.io or agentskills.io, 1/2 done, v1.0, etc.';
    expect(findPathsInMessage(text)).toEqual([]);
  });

  it('ignores paths inside fenced blocks: pasted data, not a request', () => {
    const text = 'read notes/a.md for this diff:\n```diff\n--- a/src/x.ts\n+++ b/src/x.ts\n```\nand notes/b.md';
    expect(findPathsInMessage(text)).toEqual(['notes/a.md', 'notes/b.md']);
    expect(findPathsInMessage('```\nunclosed/fence.md')).toEqual([]);
  });

  it('caps the number of candidates', () => {
    const many = Array.from({ length: 20 }, (_, i) => `f${i}.md`).join(' ');
    expect(findPathsInMessage(many)).toHaveLength(8);
  });
});

describe('isPathLike', () => {
  it.each([
    ['scripts/echo.sh', true],
    ['SKILL.md', true],
    ['data.csv', true],
    ['C:\\x', false],
    ['mailto:a@b.c', false],
    ['#heading', false],
    ['Vue.js', false],
    ['index.js', true],
    ['true/false', false],
  ])('%s -> %s', (token, expected) => {
    expect(isPathLike(token)).toBe(expected);
  });
});

describe('findPathsInInstructions', () => {
  const instructions = [
    '1. Read `references/REFERENCE.md` with `skills.readResource`.',
    '2. Run `bash scripts/echo.sh --loud` if you can.',
    'See [the form](assets/form.md#fields) and `SKILL.md`, `/etc/hosts`, `references/`.',
    '```',
    'node scripts/in-a-fence.mjs',
    '```',
  ].join('\n');

  it('finds backticked and linked relative files, not folders, absolute paths or SKILL.md itself', () => {
    expect(findPathsInInstructions(instructions)).toEqual([
      'references/REFERENCE.md',
      'scripts/echo.sh',
      'assets/form.md',
    ]);
  });

  it('keeps only listed files when the activation gives a listing', () => {
    expect(pointedFiles({ instructions, resources: ['references/REFERENCE.md', 'scripts/echo.sh'] })).toEqual([
      'references/REFERENCE.md',
      'scripts/echo.sh',
    ]);
    expect(pointedFiles({ instructions, resources: [] })).toHaveLength(3);
  });
});
