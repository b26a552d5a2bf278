import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../config';
import { normalizeSkillText, parseFrontmatter, parseFrontmatterTree, splitFrontmatter } from './frontmatter';

const parse = (yaml: string, options?: Parameters<typeof parseFrontmatter>[2]) =>
  parseFrontmatter(yaml, DEFAULT_LIMITS, options);

function parsedData(yaml: string): Record<string, unknown> {
  const result = parse(yaml);
  if (!result.ok) throw new Error(`expected a parse, got: ${result.message}`);
  return result.data;
}

describe('splitFrontmatter', () => {
  it('splits the YAML from the body and says where the body starts', () => {
    expect(splitFrontmatter('---\nname: a\ndescription: b\n---\n# Body\n')).toEqual({
      ok: true,
      yaml: 'name: a\ndescription: b\n',
      body: '# Body\n',
      bodyStartLine: 5,
    });
  });

  it('strips a UTF-8 BOM (skills-ref fails on it)', () => {
    expect(splitFrontmatter('\ufeff---\nname: a\n---\nbody')).toMatchObject({
      ok: true,
      yaml: 'name: a\n',
      body: 'body',
    });
  });

  it('accepts CRLF and lone CR line endings and returns LF text', () => {
    expect(splitFrontmatter('---\r\nname: a\r\n---\r\nline 1\r\nline 2\r\n')).toEqual({
      ok: true,
      yaml: 'name: a\n',
      body: 'line 1\nline 2\n',
      bodyStartLine: 4,
    });
    expect(splitFrontmatter('---\rname: a\r---\rbody')).toMatchObject({ ok: true, yaml: 'name: a\n', body: 'body' });
    expect(normalizeSkillText('\ufeffa\r\nb\rc\n')).toBe('a\nb\nc\n');
  });

  it('only closes on a line that is exactly ---, so --- inside a value stays (skills-ref splits on the substring)', () => {
    const result = splitFrontmatter('---\ndescription: a---b\nx: ---\n  ---\n---\nbody with\n---\nrule\n');
    expect(result).toEqual({
      ok: true,
      yaml: 'description: a---b\nx: ---\n  ---\n',
      body: 'body with\n---\nrule\n',
      bodyStartLine: 6,
    });
  });

  it('allows trailing spaces on the fences', () => {
    expect(splitFrontmatter('--- \t\nname: a\n---  \nbody')).toMatchObject({
      ok: true,
      yaml: 'name: a\n',
      body: 'body',
    });
  });

  it('accepts YAML document end (...) as the closing fence', () => {
    expect(splitFrontmatter('---\nname: a\n...\nbody')).toEqual({
      ok: true,
      yaml: 'name: a\n',
      body: 'body',
      bodyStartLine: 4,
    });
  });

  it('closes at the end of the file without a trailing newline', () => {
    expect(splitFrontmatter('---\nname: a\n---')).toEqual({ ok: true, yaml: 'name: a\n', body: '', bodyStartLine: 4 });
  });

  it('allows an empty frontmatter block', () => {
    expect(splitFrontmatter('---\n---\nbody')).toEqual({ ok: true, yaml: '', body: 'body', bodyStartLine: 3 });
  });

  it.each([
    ['no fence', '# Title\n'],
    ['a blank line first', '\n---\nname: a\n---\n'],
    ['an indented fence', ' ---\nname: a\n---\n'],
    ['a fence with text after it', '---js\nname: a\n---\n'],
    ['four dashes', '----\nname: a\n---\n'],
    ['an empty file', ''],
  ])('requires the file to start with a --- line (%s)', (_label, text) => {
    expect(splitFrontmatter(text)).toEqual({
      ok: false,
      code: 'frontmatter-missing',
      message: 'SKILL.md must start with YAML frontmatter (---)',
    });
  });

  it.each([
    ['no closing fence', '---\nname: a\ndescription: b\n'],
    ['only the opening fence', '---'],
    ['an indented closing fence', '---\nname: a\n  ---\nbody'],
    ['--- followed by text', '---\nname: a\n--- more\nbody'],
  ])('reports unclosed frontmatter (%s)', (_label, text) => {
    expect(splitFrontmatter(text)).toEqual({
      ok: false,
      code: 'frontmatter-unclosed',
      message: 'SKILL.md frontmatter not properly closed with ---',
    });
  });
});

describe('parseFrontmatter', () => {
  it('reads every scalar as a string', () => {
    const data = parsedData('version: 1.0\nbuild: 007\nflag: true\nnone: null\ntilde: ~\nnum: 1e3\nempty:\n');
    expect({ ...data }).toEqual({
      version: '1.0',
      build: '007',
      flag: 'true',
      none: 'null',
      tilde: '~',
      num: '1e3',
      empty: '',
    });
  });

  it('keeps lists and nested maps as lists and maps of strings', () => {
    const data = parsedData('metadata:\n  version: 2\n  tags: [a, 1]\n');
    const metadata = data.metadata as Record<string, unknown>;
    expect(metadata.version).toBe('2');
    expect(metadata.tags).toEqual(['a', '1']);
  });

  it('reads folded and literal block descriptions as their text, not the indicator', () => {
    expect(parsedData('description: >-\n  Folded\n  text.\n').description).toBe('Folded text.');
    expect(parsedData('description: >\n  Folded\n  text.\n').description).toBe('Folded text.\n');
    expect(parsedData('description: |\n  Line 1\n  Line 2\n').description).toBe('Line 1\nLine 2\n');
    expect(parsedData('description: |-\n  Line 1\n  Line 2\n').description).toBe('Line 1\nLine 2');
  });

  it('treats duplicate keys as invalid YAML', () => {
    expect(parse('name: a\nname: b\n')).toEqual({
      ok: false,
      code: 'yaml-invalid',
      message: 'Invalid YAML in frontmatter: Map keys must be unique at line 3, column 1',
    });
  });

  it('reports SKILL.md line numbers (the YAML starts on line 2), or from firstLine', () => {
    expect(parse('a: 1\na: 2\n', { firstLine: 10 })).toMatchObject({
      message: 'Invalid YAML in frontmatter: Map keys must be unique at line 11, column 1',
    });
  });

  it.each([
    ['a list', '- a\n- b\n'],
    ['a scalar', 'just text\n'],
    ['nothing', ''],
    ['only comments', '# nothing here\n'],
  ])('requires a mapping (%s)', (_label, yaml) => {
    expect(parse(yaml)).toEqual({
      ok: false,
      code: 'frontmatter-not-mapping',
      message: 'SKILL.md frontmatter must be a YAML mapping',
    });
  });

  it('keeps __proto__ as plain data and never touches a prototype', () => {
    const data = parsedData('__proto__:\n  polluted: yes\nname: x\n');
    expect(Object.getPrototypeOf(data)).toBeNull();
    expect(Object.keys(data)).toEqual(['__proto__', 'name']);
    expect(Object.hasOwn(data, '__proto__')).toBe(true);
    expect({ ...(Object.getOwnPropertyDescriptor(data, '__proto__')?.value as object) }).toEqual({ polluted: 'yes' });
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('has no merge keys: << is an ordinary key', () => {
    const data = parsedData('base: &b\n  x: 1\nchild:\n  <<: *b\n');
    expect({ ...(data.child as Record<string, unknown>) }).toEqual({ '<<': { x: '1' } });
  });

  it('allows a few aliases but refuses an alias bomb', () => {
    expect(parsedData('a: &x hello\nb: *x\n').b).toBe('hello');
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ].join('\n');
    expect(parse(bomb)).toEqual({
      ok: false,
      code: 'yaml-invalid',
      message: 'Invalid YAML in frontmatter: Excessive alias count indicates a resource exhaustion attack',
    });
  });

  it('refuses an alias that contains itself', () => {
    expect(parse('a: &a\n  b: *a\n')).toEqual({
      ok: false,
      code: 'yaml-invalid',
      message: 'Invalid YAML in frontmatter: an alias refers to the collection that contains it',
    });
  });

  it('refuses non-string (complex) keys', () => {
    expect(parse('? [a, b]\n: c\n')).toEqual({
      ok: false,
      code: 'yaml-invalid',
      message: 'Invalid YAML in frontmatter: With stringKeys, all keys must be strings at line 2, column 3',
    });
  });

  it('refuses a second YAML document', () => {
    expect(parse('name: a\n--- b\n')).toEqual({
      ok: false,
      code: 'yaml-invalid',
      message: 'Invalid YAML in frontmatter: the frontmatter holds more than one YAML document (line 3, column 1)',
    });
  });

  it('refuses tab indentation', () => {
    expect(parse('metadata:\n\tkey: value\n')).toMatchObject({
      ok: false,
      message: 'Invalid YAML in frontmatter: Tabs are not allowed as indentation at line 3, column 1',
    });
  });

  describe('tags', () => {
    it('lenient: ignores the tag, keeps the plain string (never a Buffer), and warns', () => {
      const result = parse('description: !!binary aGVsbG8=\nother: !custom {a: b}\n');
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.data.description).toBe('aGVsbG8=');
      expect(Buffer.isBuffer(result.data.description)).toBe(false);
      expect({ ...(result.data.other as Record<string, unknown>) }).toEqual({ a: 'b' });
      expect(result.recovered).toEqual([
        {
          severity: 'warning',
          code: 'yaml-tag-ignored',
          message: 'The YAML tag !!binary at line 2, column 14 was ignored; the value was read as plain text.',
          hint: 'Remove the tag: frontmatter values are plain strings.',
        },
        {
          severity: 'warning',
          code: 'yaml-tag-ignored',
          message: 'The YAML tag !custom at line 3, column 8 was ignored; the value was read as plain text.',
          hint: 'Remove the tag: frontmatter values are plain strings.',
        },
      ]);
    });

    it('strict: a tag is invalid YAML (strictyaml refuses tags too)', () => {
      expect(parse('description: !!binary aGVsbG8=\n', { mode: 'strict' })).toEqual({
        ok: false,
        code: 'yaml-invalid',
        message: 'Invalid YAML in frontmatter: tags are not allowed (!!binary) at line 2, column 14',
      });
    });

    it("strict: the schema's own tags are refused too, shorthand or verbatim, as strictyaml does", () => {
      expect(parse('description: !!str 12\n', { mode: 'strict' })).toEqual({
        ok: false,
        code: 'yaml-invalid',
        message: 'Invalid YAML in frontmatter: tags are not allowed (!!str) at line 2, column 14',
      });
      expect(parse('a: x\ndescription: !<tag:yaml.org,2002:str> 12\n', { mode: 'strict' })).toMatchObject({
        ok: false,
        message: 'Invalid YAML in frontmatter: tags are not allowed (!<tag:yaml.org,2002:str>) at line 3, column 14',
      });
      expect(parse('metadata: !!map\n  k: v\n', { mode: 'strict' })).toMatchObject({
        ok: false,
        message: 'Invalid YAML in frontmatter: tags are not allowed (!!map) at line 2, column 11',
      });
    });

    it('lenient: a standard tag is ignored with the same warning, after an anchor too', () => {
      const result = parse('description: !!str &a 12\n');
      expect(result).toMatchObject({
        ok: true,
        data: { description: '12' },
        recovered: [{ code: 'yaml-tag-ignored', message: expect.stringContaining('!!str at line 2, column 14') }],
      });
    });
  });

  describe('unquoted ": " in a value', () => {
    it('lenient: re-reads the value quoted and says so', () => {
      const result = parse('name: x\ndescription: Use when: the user asks\nlicense: MIT\n');
      expect(result).toEqual({
        ok: true,
        data: { name: 'x', description: 'Use when: the user asks', license: 'MIT' },
        recovered: [
          {
            severity: 'info',
            code: 'yaml-recovered-colon',
            message:
              "The value of 'description' (line 3) contains ': ', which YAML reads as a nested mapping; it was re-read as a quoted string.",
            hint: 'Quote the value: description: "Use when: the user asks"',
          },
        ],
      });
    });

    it('strict: the same text is invalid YAML, as skills-ref says', () => {
      expect(parse('name: x\ndescription: Use when: the user asks\n', { mode: 'strict' })).toEqual({
        ok: false,
        code: 'yaml-invalid',
        message:
          'Invalid YAML in frontmatter: Nested mappings are not allowed in compact mappings at line 3, column 14',
      });
    });

    it('takes continuation lines along, folding them as YAML folds the plain scalar', () => {
      const yaml = 'description: Reads "quoted" text and C:\\path\n  when: the user asks\n\n  twice\nlicense: MIT\n';
      const result = parse(yaml);
      expect(result).toMatchObject({
        ok: true,
        data: { description: 'Reads "quoted" text and C:\\path when: the user asks\ntwice', license: 'MIT' },
        recovered: [{ code: 'yaml-recovered-colon', message: expect.stringContaining('(lines 2-5)') }],
      });
    });

    it('recovers a continuation line that holds the colon', () => {
      expect(parsedData('description: Use this skill\n  when: the user asks\nname: x\n')).toMatchObject({
        description: 'Use this skill when: the user asks',
        name: 'x',
      });
    });

    it('recovers a trailing colon and nested values, one diagnostic per line', () => {
      const result = parse('description: Triggers:\nmetadata:\n  note: a: b\n  x: y\n');
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.data.description).toBe('Triggers:');
      expect({ ...(result.data.metadata as Record<string, unknown>) }).toEqual({ note: 'a: b', x: 'y' });
      expect(result.recovered.map((d) => d.message)).toEqual([
        "The value of 'description' (line 2) contains ': ', which YAML reads as a nested mapping; it was re-read as a quoted string.",
        "The value of 'note' (line 4) contains ': ', which YAML reads as a nested mapping; it was re-read as a quoted string.",
      ]);
    });

    it('keeps later line numbers right after a multi-line repair', () => {
      // The colon on line 2 is recovered; the duplicate key on line 5 is what stops the parse.
      expect(parse('description: a: b\n  c\nname: x\nname: y\n')).toEqual({
        ok: false,
        code: 'yaml-invalid',
        message: 'Invalid YAML in frontmatter: Map keys must be unique at line 5, column 1',
      });
      // Strict mode reports the first problem, as skills-ref would.
      expect(parse('description: a: b\n  c\nname: x\nname: y\n', { mode: 'strict' })).toMatchObject({
        message:
          'Invalid YAML in frontmatter: Nested mappings are not allowed in compact mappings at line 2, column 14',
      });
    });

    it('does not quote values that mean something else in YAML', () => {
      expect(parse('description: "quoted": x\n')).toMatchObject({ ok: false, code: 'yaml-invalid' });
      expect(parse('description: [WIP] thing\n')).toMatchObject({
        ok: false,
        message: 'Invalid YAML in frontmatter: Unexpected scalar at node end at line 2, column 20',
      });
    });
  });

  it('lenient: re-reads a value that starts with a reserved character', () => {
    expect(parse('description: @mention people\n')).toEqual({
      ok: true,
      data: { description: '@mention people' },
      recovered: [
        {
          severity: 'info',
          code: 'yaml-recovered-quoted',
          message:
            "The value of 'description' (line 2) starts with a character YAML reserves; it was re-read as a quoted string.",
          hint: 'Quote the value: description: "@mention people"',
        },
      ],
    });
    expect(parse('description: `code`\n', { mode: 'strict' })).toMatchObject({
      ok: false,
      message: 'Invalid YAML in frontmatter: Plain value cannot start with reserved character ` at line 2, column 14',
    });
  });

  it('accepts flow collections (strictyaml does not)', () => {
    expect(parsedData('allowed-tools: [Read, Grep]\n')['allowed-tools']).toEqual(['Read', 'Grep']);
  });

  describe('" #" starts a comment', () => {
    it('cuts an unquoted description there, as YAML (and skills-ref) do, and says what was dropped', () => {
      expect(parse('description: Helps with C# and #hashtags\n')).toEqual({
        ok: true,
        data: { description: 'Helps with C# and' },
        recovered: [
          {
            severity: 'info',
            code: 'yaml-comment-truncated',
            message: "The description was cut at ' #' (line 2, column 31): YAML reads '#hashtags' as a comment.",
            hint: 'Quote the description to keep text after " #".',
          },
        ],
      });
    });

    it('keeps # without a space before it, in quotes and in block scalars, without a diagnostic', () => {
      expect(parse('description: "C# and #tags" # real comment\n')).toMatchObject({
        data: { description: 'C# and #tags' },
        recovered: [],
      });
      expect(parse('description: >\n  a #b\n')).toMatchObject({ data: { description: 'a #b\n' }, recovered: [] });
      expect(parse('description: C#\n')).toMatchObject({ data: { description: 'C#' }, recovered: [] });
    });
  });

  describe('size cap', () => {
    it('refuses frontmatter over limits.maxFrontmatterBytes before parsing', () => {
      expect(parseFrontmatter('description: 12345\n', { maxFrontmatterBytes: 10 })).toEqual({
        ok: false,
        code: 'frontmatter-too-large',
        message: 'Frontmatter is 19 bytes; the limit is 10 bytes (limits.maxFrontmatterBytes)',
      });
    });

    it('counts UTF-8 bytes, not characters', () => {
      const yaml = 'd: ééééé\n'; // 9 characters, 14 bytes
      expect(parseFrontmatter(yaml, { maxFrontmatterBytes: 14 }).ok).toBe(true);
      expect(parseFrontmatter(yaml, { maxFrontmatterBytes: 13 })).toMatchObject({
        ok: false,
        message: 'Frontmatter is 14 bytes; the limit is 13 bytes (limits.maxFrontmatterBytes)',
      });
    });

    // The cap exists because yaml's duplicate-key check is quadratic; parse time is reported by `npm run bench`.
    it('parses a frontmatter right at the default cap', () => {
      const lines: string[] = [];
      let size = 0;
      for (let i = 0; size < DEFAULT_LIMITS.maxFrontmatterBytes - 16; i++) {
        const line = `k${i}: v\n`;
        lines.push(line);
        size += line.length;
      }
      const result = parseFrontmatterTree(lines.join(''), DEFAULT_LIMITS);
      expect(result.ok).toBe(true);
    });
  });

  it('parseFrontmatterTree keeps key order exactly, numeric-looking keys included', () => {
    const result = parseFrontmatterTree('metadata:\n  b: 1\n  "10": 2\n  a: 3\n', DEFAULT_LIMITS);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const metadata = result.tree.get('metadata');
    expect(metadata instanceof Map ? [...metadata.keys()] : null).toEqual(['b', '10', 'a']);
  });
});
