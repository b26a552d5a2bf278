/**
 * The fast path must read exactly what the full YAML parser reads, or step aside (`null`). Differential: every
 * committed fixture, hand-written edge cases and a few thousand generated ones go through both.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { skillFileText } from '../../../bench/generate';
import { DEFAULT_LIMITS } from '../../config';
import { parseFrontmatterTree, splitFrontmatter } from './frontmatter';
import { parseSimpleFrontmatter } from './frontmatter-fast';

function fullParse(yaml: string) {
  return parseFrontmatterTree(yaml, DEFAULT_LIMITS, { fastPath: false });
}

/** Asserts agreement; returns whether the fast path took the input. */
function agree(yaml: string): boolean {
  const fast = parseSimpleFrontmatter(yaml);
  if (fast === null) return false;
  const full = fullParse(yaml);
  expect(full.ok, yaml).toBe(true);
  if (!full.ok) return true;
  expect(fast, yaml).toEqual(full.tree);
  expect(full.recovered, yaml).toEqual([]);
  return true;
}

function fixtureFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...fixtureFiles(p));
    else if (entry.isFile() && /^skill\.md$/i.test(entry.name)) out.push(p);
  }
  return out;
}

describe('parseSimpleFrontmatter', () => {
  it('agrees with the full parser on every fixture', () => {
    let taken = 0;
    const files = fixtureFiles(path.join(import.meta.dirname, '..', 'fixtures'));
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      const split = splitFrontmatter(fs.readFileSync(file, 'utf8'));
      if (split.ok && agree(split.yaml)) taken++;
    }
    expect(taken).toBeGreaterThan(10);
  });

  it('takes the common shapes', () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      [
        'name: pdf\ndescription: Extract text from PDF files.\n',
        { name: 'pdf', description: 'Extract text from PDF files.' },
      ],
      ['name: a\ndescription: "Quoted \\"text\\" \\u00e9\\n"\n', { name: 'a', description: 'Quoted "text" é\n' }],
      ["name: a\ndescription: 'It''s single'\n", { name: 'a', description: "It's single" }],
      ['name: a\ndescription: x\nmetadata:\n  author: me\n  version: "1.0"\n', { name: 'a', description: 'x' }],
      ['name: a\n\ndescription:   spaced out   \nlicense:\n', { name: 'a', description: 'spaced out', license: '' }],
      ['name: a\ndescription: key:value, [brackets] {braces} and 100% ok\n', { name: 'a' }],
      ['name: a\ndescription: true\nlicense: 1.0\ncompatibility: null\n', { name: 'a', description: 'true' }],
    ];
    for (const [yaml, expected] of cases) {
      expect(agree(yaml), yaml).toBe(true);
      expect(Object.fromEntries(parseSimpleFrontmatter(yaml)!)).toMatchObject(expected);
    }
  });

  it('steps aside for anything outside the simple subset', () => {
    const cases = [
      'name: a\ndescription: C# and #tags\n', // ` #` starts a comment: the full parser says what was cut
      'name: a\ndescription: Use when: the user asks\n', // `: ` is recovered with a diagnostic
      'name: a\ndescription: >\n  folded\n', // block scalars
      'name: a\ndescription: first line\n  continued\n', // multi-line plain
      'name: a\nname: b\ndescription: x\n', // duplicate keys are an error
      'name: a\ndescription: "unterminated\n',
      'name: a\ndescription: "\\x41"\n', // YAML-only escape
      'name: a\ndescription: x\ntags: [a, b]\n',
      'name: a\ndescription: x\nlist:\n- a\n',
      'name: &a pdf\ndescription: *a\n',
      'name: !!str a\ndescription: x\n',
      '# comment\nname: a\ndescription: x\n',
      'name: a\ndescription: @reserved\n',
      'name: a\ndescription: -starts with a dash\n',
      'name: a\ndescription: tab\there\n',
      'name: a\ndescription: ends with a colon:\n',
      'name: a\nmetadata:\n  a: 1\n    b: 2\n',
      'name: a\nmetadata:\n  nested:\n    deeper: x\n',
      '',
      '\n\n',
      '- a\n- b\n',
    ];
    for (const yaml of cases) expect(parseSimpleFrontmatter(yaml), yaml).toBeNull();
  });

  it('agrees on generated skills and on generated awkward values', () => {
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let taken = 0;
    for (let i = 0; i < 300; i++) {
      const split = splitFrontmatter(skillFileText(`skill-${i}`, rnd));
      if (split.ok && agree(split.yaml)) taken++;
    }
    expect(taken).toBe(300);

    const pieces = [
      'a',
      ' ',
      ':',
      '#',
      '"',
      "'",
      '\\',
      '-',
      '[',
      ']',
      '{',
      '}',
      ',',
      '&',
      '*',
      '!',
      '|',
      '>',
      '%',
      '@',
      '`',
      '?',
      'é',
      '😀',
      '...',
      '---',
      'x: y',
      ' #c',
      'true',
      '~',
      '.5',
      '\\n',
      '\\u00e9',
      "''",
    ];
    for (let i = 0; i < 3000; i++) {
      let value = '';
      const n = 1 + Math.floor(rnd() * 6);
      for (let k = 0; k < n; k++) value += pieces[Math.floor(rnd() * pieces.length)];
      const quoted = rnd();
      const shown = quoted < 0.2 ? `"${value}"` : quoted < 0.3 ? `'${value}'` : value;
      const yaml = rnd() < 0.5 ? `name: n\ndescription: ${shown}\n` : `name: n\nmetadata:\n  k: ${shown}\n  j: v\n`;
      agree(yaml);
    }
  });

  // Property: on any input built from YAML's awkward characters (Unicode spaces YAML does not treat as white space,
  // indicators, quotes, escapes, tabs, line breaks, indentation), the fast path either steps aside or reads exactly
  // the full parser's tree. fast-check shrinks a disagreement to a minimal frontmatter.
  it('never disagrees with the full parser on generated frontmatter (property)', () => {
    const unit = fc.constantFrom(
      'a',
      'Z',
      '1',
      ' ',
      '  ',
      '\t',
      '\u00a0',
      '\u3000',
      '\u2003',
      '\u200b',
      '\u0085',
      '\u2028',
      '\ufeff',
      ':',
      ': ',
      '#',
      ' #',
      '"',
      "'",
      "''",
      '\\',
      '\\n',
      '\\u00e9',
      '\\x41',
      '-',
      '- ',
      '[',
      ']',
      '{',
      '}',
      ',',
      '&',
      '*',
      '!',
      '!!str ',
      '|',
      '>',
      '%',
      '@',
      '`',
      '?',
      'é',
      '😀',
      '...',
      '---',
      'true',
      '~',
      'null',
      '\r',
    );
    const value = fc
      .tuple(fc.string({ unit, maxLength: 8 }), fc.constantFrom('', '"', "'"))
      .map(([text, q]) => (q ? `${q}${text}${q}` : text));
    const key = fc.constantFrom('name', 'description', 'license', 'metadata', 'a', 'b-c', '_x', 'k1');
    const sep = fc.constantFrom(': ', ':  ', ':', ':\t', ' : ', ':\u00a0');
    const indent = fc.constantFrom('', ' ', '  ', '    ', '\t', '\u00a0');
    const line = fc.tuple(indent, key, sep, value).map((parts) => parts.join(''));
    const frontmatter = fc
      .array(fc.oneof(line, fc.constant(''), fc.constant('metadata:')), { minLength: 1, maxLength: 6 })
      .map((lines) => `${lines.join('\n')}\n`);

    let taken = 0;
    fc.assert(
      fc.property(frontmatter, (yaml) => {
        if (agree(yaml)) taken++;
      }),
      { numRuns: 3000, seed: 15 },
    );
    // The property says nothing if the fast path never takes an input: it must take a fair share.
    expect(taken).toBeGreaterThan(100);
  });
});
