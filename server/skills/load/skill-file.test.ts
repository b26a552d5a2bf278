import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../config';
import { v8Shapes } from '../testing';
import { findSkillFile, type LoadSkillOptions, loadSkill, readSkillFile, readSkillFileSync } from './skill-file';
import { validatePath } from './skills-ref';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'validate');
const fixture = (name: string) => path.join(FIXTURES, name);
const options = (relDir: string, limits = DEFAULT_LIMITS): LoadSkillOptions => ({
  root: FIXTURES,
  scope: 'project',
  relDir,
  limits,
});
const load = (name: string, limits = DEFAULT_LIMITS) => loadSkill(fixture(name), options(name, limits));

const ALLOWED = "['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name']";

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skill-file-test-'));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function writeSkill(dirName: string, content: string | Buffer, fileName = 'SKILL.md'): string {
  const dir = path.join(tmp, dirName);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, fileName), content);
  return dir;
}

type Summary = [severity: string, code: string, message: string];
const summary = (diagnostics: { severity: string; code: string; message: string }[]): Summary[] =>
  diagnostics.map((d) => [d.severity, d.code, d.message]);

describe('loadSkill: skills that load', () => {
  it('loads a valid skill with every Skill field filled', async () => {
    const dir = fixture('valid');
    const file = path.join(dir, 'SKILL.md');
    const stat = fs.statSync(file);
    const result = await loadSkill(dir, { root: FIXTURES, scope: 'user', relDir: 'valid', limits: DEFAULT_LIMITS });
    expect(result).toEqual({
      skill: {
        name: 'valid',
        description: 'A valid skill used as the baseline.',
        dir: fs.realpathSync(dir),
        file: path.join(fs.realpathSync(dir), 'SKILL.md'),
        root: FIXTURES,
        relDir: 'valid',
        scope: 'user',
        frontmatter: { name: 'valid', description: 'A valid skill used as the baseline.' },
        size: stat.size,
        mtimeMs: stat.mtimeMs,
        diagnostics: [],
      },
      diagnostics: [],
    });
  });

  it('copies every known field and no other', async () => {
    const { skill } = await load('all-fields');
    expect(skill?.frontmatter).toEqual({
      name: 'all-fields',
      description: 'Uses every field the spec allows.',
      license: 'Apache-2.0',
      compatibility: 'Requires git and network access',
      'allowed-tools': 'Bash(git:*) Read',
      metadata: { author: 'Example Org', version: '1.0' },
    });
    expect(Object.keys(skill?.frontmatter ?? {})).toEqual([
      'name',
      'description',
      'license',
      'compatibility',
      'allowed-tools',
      'metadata',
    ]);
    expect(skill?.diagnostics).toEqual([]);
  });

  it.each<[string, { name: string; description: string }, Summary[]]>([
    [
      'name-mismatch',
      { name: 'other-name', description: 'The name does not match the folder.' },
      [['warning', 'name-mismatch', "Directory name 'name-mismatch' must match skill name 'other-name'"]],
    ],
    [
      'missing-name',
      { name: 'missing-name', description: 'No name field; the folder name is used.' },
      [['warning', 'name-missing', 'Missing required field in frontmatter: name']],
    ],
    [
      'empty-name',
      { name: 'empty-name', description: 'The name is an empty string.' },
      [['warning', 'name-empty', "Field 'name' must be a non-empty string"]],
    ],
    [
      'name-not-string',
      { name: 'name-not-string', description: 'The name is a mapping.' },
      [['warning', 'name-empty', "Field 'name' must be a non-empty string"]],
    ],
    [
      'description-too-long',
      { name: 'description-too-long', description: 'x'.repeat(1068) },
      [['warning', 'description-too-long', 'Description exceeds 1024 character limit (1068 chars)']],
    ],
    [
      'unknown-field',
      { name: 'unknown-field', description: 'Has fields the spec does not allow.' },
      [
        [
          'warning',
          'unexpected-fields',
          `Unexpected fields in frontmatter: author, version. Only ${ALLOWED} are allowed.`,
        ],
      ],
    ],
    [
      'uppercase-name',
      { name: 'Uppercase-Name', description: 'The name has capitals.' },
      [
        ['warning', 'name-not-lowercase', "Skill name 'Uppercase-Name' must be lowercase"],
        ['warning', 'name-mismatch', "Directory name 'uppercase-name' must match skill name 'Uppercase-Name'"],
      ],
    ],
    [
      'chinese-name',
      { name: '技能', description: 'A Chinese name is letters, so only the folder differs.' },
      [['warning', 'name-mismatch', "Directory name 'chinese-name' must match skill name '技能'"]],
    ],
    [
      'cyrillic-uppercase',
      { name: 'НАВЫК', description: 'Uppercase Cyrillic is not lowercase.' },
      [
        ['warning', 'name-not-lowercase', "Skill name 'НАВЫК' must be lowercase"],
        ['warning', 'name-mismatch', "Directory name 'cyrillic-uppercase' must match skill name 'НАВЫК'"],
      ],
    ],
    [
      'compatibility-too-long',
      { name: 'compatibility-too-long', description: 'Compatibility is too long.' },
      [['warning', 'compatibility-too-long', 'Compatibility exceeds 500 character limit (501 chars)']],
    ],
    [
      'compatibility-not-string',
      { name: 'compatibility-not-string', description: 'Compatibility is a list.' },
      [['warning', 'compatibility-not-string', "Field 'compatibility' must be a string"]],
    ],
    [
      'license-not-string',
      { name: 'license-not-string', description: 'License as a list.' },
      [['warning', 'license-not-string', "Field 'license' must be a string; it was ignored"]],
    ],
    [
      'allowed-tools-list',
      { name: 'allowed-tools-list', description: 'Tools as a YAML list.' },
      [
        [
          'warning',
          'allowed-tools-not-string',
          "Field 'allowed-tools' should be a space-separated string; the list was joined with spaces",
        ],
      ],
    ],
    [
      'allowed-tools-mapping',
      { name: 'allowed-tools-mapping', description: 'Tools as a mapping.' },
      [
        [
          'warning',
          'allowed-tools-not-string',
          "Field 'allowed-tools' must be either a string or a list of strings; it was ignored",
        ],
      ],
    ],
    [
      'metadata-non-string',
      { name: 'metadata-non-string', description: 'Metadata with nested values.' },
      [['warning', 'metadata-value-not-string', 'Metadata values must be strings; ignored: tags, owner']],
    ],
    [
      'metadata-not-mapping',
      { name: 'metadata-not-mapping', description: 'Metadata is a string.' },
      [['warning', 'metadata-not-mapping', "Field 'metadata' must be a mapping of strings; it was ignored"]],
    ],
    [
      'unquoted-colon',
      { name: 'unquoted-colon', description: 'Use when: the user asks about colons' },
      [
        [
          'info',
          'yaml-recovered-colon',
          "The value of 'description' (line 3) contains ': ', which YAML reads as a nested mapping; it was re-read as a quoted string.",
        ],
      ],
    ],
    [
      'unquoted-colon-multiline',
      {
        name: 'unquoted-colon-multiline',
        description: 'Reads "quoted" text and C:\\paths when: the user asks\ntwice',
      },
      [
        [
          'info',
          'yaml-recovered-colon',
          "The value of 'description' (lines 3-6) contains ': ', which YAML reads as a nested mapping; it was re-read as a quoted string.",
        ],
      ],
    ],
    [
      'reserved-character',
      { name: 'reserved-character', description: '@mention people in a review' },
      [
        [
          'info',
          'yaml-recovered-quoted',
          "The value of 'description' (line 3) starts with a character YAML reserves; it was re-read as a quoted string.",
        ],
      ],
    ],
    [
      'tag',
      { name: 'tag', description: 'aGVsbG8=' },
      [
        [
          'warning',
          'yaml-tag-ignored',
          'The YAML tag !!binary at line 3, column 14 was ignored; the value was read as plain text.',
        ],
      ],
    ],
    [
      'hash-comment',
      { name: 'hash-comment', description: 'Helps with C# and' },
      [
        [
          'info',
          'yaml-comment-truncated',
          "The description was cut at ' #' (line 3, column 31): YAML reads '#hashtags' as a comment.",
        ],
      ],
    ],
    ['bom', { name: 'bom', description: 'Starts with a UTF-8 byte order mark.' }, []],
    ['crlf', { name: 'crlf', description: 'Written with Windows line endings.' }, []],
    ['dashes-in-value', { name: 'dashes-in-value', description: 'a---b' }, []],
    ['dots-closing-fence', { name: 'dots-closing-fence', description: 'Closed with YAML document end.' }, []],
    ['folded-description', { name: 'folded-description', description: 'Folded text that continues here.' }, []],
    ['literal-description', { name: 'literal-description', description: 'Line one.\nLine two.' }, []],
    ['lowercase-skill-md', { name: 'lowercase-skill-md', description: 'Only a lowercase skill.md.' }, []],
  ])('%s: loads, with the problems as diagnostics', async (name, expected, diagnostics) => {
    const result = await load(name);
    expect(result.skill).toMatchObject(expected);
    expect(summary(result.skill?.diagnostics ?? [])).toEqual(diagnostics);
    expect(result.diagnostics).toEqual(result.skill?.diagnostics);
  });

  it('the fixtures really have the bytes they claim (a BOM, CRLF)', () => {
    expect([...fs.readFileSync(path.join(fixture('bom'), 'SKILL.md')).subarray(0, 4)]).toEqual([
      0xef, 0xbb, 0xbf, 0x2d,
    ]);
    expect(fs.readFileSync(path.join(fixture('crlf'), 'SKILL.md'), 'utf8')).toMatch(/^---\r\nname: crlf\r\n/);
  });

  it('keeps the frontmatter values as parsed but trims the Skill description', async () => {
    const { skill } = await load('literal-description');
    expect(skill?.frontmatter.description).toBe('Line one.\nLine two.\n');
    expect(skill?.description).toBe('Line one.\nLine two.');
  });

  it('uses the trimmed NFKC name, else the folder name', async () => {
    const dir = writeSkill('nfkc-name', '---\nname: "  ｎｆｋｃ－ｎａｍｅ "\ndescription: x\n---\n');
    const result = await loadSkill(dir, options('nfkc-name'));
    expect(result.skill?.name).toBe('nfkc-name');
    expect(result.skill?.frontmatter.name).toBe('  ｎｆｋｃ－ｎａｍｅ ');
    expect(result.diagnostics).toEqual([]);
    const blank = writeSkill('blank-name', '---\nname: "   "\ndescription: x\n---\n');
    expect((await loadSkill(blank, options('blank-name'))).skill?.name).toBe('blank-name');
  });

  it('copies metadata values that are strings, and version: 1.0 stays "1.0"', async () => {
    const { skill } = await load('version-string');
    expect(skill?.frontmatter.metadata).toEqual({ version: '1.0', build: '007', beta: 'true', nothing: 'null' });
    expect((await load('metadata-non-string')).skill?.frontmatter.metadata).toEqual({ team: 'search' });
  });

  it('keeps allowed-tools lists as one space-separated string', async () => {
    expect((await load('allowed-tools-list')).skill?.frontmatter['allowed-tools']).toBe('Read Grep');
    expect((await load('allowed-tools-mapping')).skill?.frontmatter['allowed-tools']).toBeUndefined();
  });

  it('never lets __proto__ reach a prototype', async () => {
    const result = await load('proto-key');
    expect(summary(result.diagnostics)).toEqual([
      ['warning', 'unexpected-fields', `Unexpected fields in frontmatter: __proto__. Only ${ALLOWED} are allowed.`],
    ]);
    const frontmatter = result.skill?.frontmatter;
    expect(Object.getPrototypeOf(frontmatter)).toBe(Object.prototype);
    expect(Object.keys(frontmatter ?? {})).toEqual(['name', 'description', 'metadata']);
    const metadata = frontmatter?.metadata ?? {};
    expect(Object.hasOwn(metadata, '__proto__')).toBe(true);
    expect(Object.entries(metadata)).toEqual([['__proto__', 'also-data']]);
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("keeps none of the file's text alive: every string it keeps is its own, and metadata is a plain object", async () => {
    const { isSlice, hasFastProperties } = v8Shapes();
    expect(isSlice(`${'x'.repeat(40)}${'a slice of a longer string'}`.slice(40))).toBe(true);
    expect(isSlice(JSON.parse('"a string of its own, not a slice"'))).toBe(false);

    const long = 'long-enough-to-be-sliced';
    const dirs = [
      // The fast path (plain values) and the full parser (a folded description, a comment).
      writeSkill(
        long,
        `---\nname: ${long}\ndescription: Plain words that name what the skill does and when.\nlicense: Apache-2.0 with notes\n` +
          `compatibility: Needs a shell with git and jq installed\nallowed-tools: Read Grep Bash(git:*)\n` +
          `when_to_use: When someone asks for it by this long name\nargument-hint: <file> [--verbose output]\n` +
          `metadata:\n  author: someone with a long name\n  version: "1.0.0-with-a-long-suffix"\n---\n# Body\n`,
      ),
      writeSkill(
        `${long}-yaml`,
        `---\n# a comment\nname: ${long}-yaml\ndescription: >\n  Folded words that name what the skill does\n  and when.\n` +
          `metadata:\n  author: someone with a long name # and a comment\n---\n`,
      ),
    ];
    for (const dir of dirs) {
      const { skill } = await loadSkill(dir, options(path.basename(dir)));
      if (!skill) throw new Error(`${dir} did not load`);
      const { metadata = {}, ...fields } = skill.frontmatter;
      // The Skill's description is the frontmatter's trimmed: at most a slice of that copy, which is kept anyway.
      const kept = [skill.name, ...Object.values(fields), ...Object.values(metadata)];
      const texts = kept.filter((value): value is string => typeof value === 'string' && value.length >= 13);
      expect(texts.length).toBeGreaterThan(3);
      expect(texts.filter(isSlice)).toEqual([]);
      expect(hasFastProperties(metadata)).toBe(true);
      expect(Object.getPrototypeOf(metadata)).toBe(null);
    }
  });

  it('uses the real path of a symlinked folder, but matches the name against the link name', async () => {
    const real = writeSkill('real-target', '---\nname: linked\ndescription: Via a link.\n---\n');
    const link = path.join(tmp, 'linked');
    fs.symlinkSync(real, link, 'dir');
    const result = await loadSkill(link, options('linked'));
    expect(result.skill).toMatchObject({ name: 'linked', dir: fs.realpathSync(real), relDir: 'linked' });
    expect(result.skill?.file).toBe(path.join(fs.realpathSync(real), 'SKILL.md'));
    expect(result.diagnostics).toEqual([]);
  });

  it('follows a symlinked SKILL.md', async () => {
    const target = path.join(tmp, 'shared-skill.md');
    fs.writeFileSync(target, '---\nname: link-file\ndescription: Linked file.\n---\n');
    const dir = path.join(tmp, 'link-file');
    fs.mkdirSync(dir);
    fs.symlinkSync(target, path.join(dir, 'SKILL.md'));
    const result = await loadSkill(dir, options('link-file'));
    expect(result.skill?.description).toBe('Linked file.');
    expect(result.skill?.size).toBe(fs.statSync(target).size);
  });

  it('warns about invalid UTF-8 and still loads', async () => {
    const dir = writeSkill(
      'bad-utf8',
      Buffer.concat([
        Buffer.from('---\nname: bad-utf8\ndescription: caf'),
        Buffer.from([0xe9]),
        Buffer.from('\n---\n'),
      ]),
    );
    const result = await loadSkill(dir, options('bad-utf8'));
    expect(result.skill?.description).toBe('caf\ufffd');
    expect(summary(result.diagnostics)).toEqual([
      ['warning', 'skill-file-invalid-utf8', 'SKILL.md is not valid UTF-8; invalid bytes were replaced with U+FFFD'],
    ]);
  });
});

describe('loadSkill: skills that are not loaded', () => {
  it.each<[string, Summary[]]>([
    ['missing-skill-md', [['error', 'skill-file-missing', 'Missing required file: SKILL.md']]],
    ['no-frontmatter', [['error', 'frontmatter-missing', 'SKILL.md must start with YAML frontmatter (---)']]],
    ['unclosed-frontmatter', [['error', 'frontmatter-unclosed', 'SKILL.md frontmatter not properly closed with ---']]],
    ['not-a-mapping', [['error', 'frontmatter-not-mapping', 'SKILL.md frontmatter must be a YAML mapping']]],
    ['empty-frontmatter', [['error', 'frontmatter-not-mapping', 'SKILL.md frontmatter must be a YAML mapping']]],
    [
      'duplicate-keys',
      [['error', 'yaml-invalid', 'Invalid YAML in frontmatter: Map keys must be unique at line 4, column 1']],
    ],
    [
      'alias-bomb',
      [
        [
          'error',
          'yaml-invalid',
          'Invalid YAML in frontmatter: Excessive alias count indicates a resource exhaustion attack',
        ],
      ],
    ],
    ['missing-description', [['error', 'description-missing', 'Missing required field in frontmatter: description']]],
    ['empty-description', [['error', 'description-empty', "Field 'description' must be a non-empty string"]]],
    ['description-not-string', [['error', 'description-empty', "Field 'description' must be a non-empty string"]]],
  ])('%s', async (name, expected) => {
    const result = await load(name);
    expect(result.skill).toBeNull();
    expect(summary(result.diagnostics)).toEqual(expected);
  });

  it('keeps the other problems too when the description is missing', async () => {
    const dir = writeSkill('many-problems', '---\nname: Other\nextra: 1\n---\n');
    const result = await loadSkill(dir, options('many-problems'));
    expect(result.skill).toBeNull();
    expect(summary(result.diagnostics)).toEqual([
      ['warning', 'unexpected-fields', `Unexpected fields in frontmatter: extra. Only ${ALLOWED} are allowed.`],
      ['warning', 'name-not-lowercase', "Skill name 'Other' must be lowercase"],
      ['warning', 'name-mismatch', "Directory name 'many-problems' must match skill name 'Other'"],
      ['error', 'description-missing', 'Missing required field in frontmatter: description'],
    ]);
  });

  it('reports a folder that does not exist', async () => {
    const missing = path.join(tmp, 'does-not-exist');
    const result = await loadSkill(missing, options('does-not-exist'));
    expect(result.skill).toBeNull();
    expect(result.diagnostics).toEqual([
      {
        severity: 'error',
        code: 'skill-dir-unreadable',
        message: 'Cannot read the skill folder: ENOENT',
        hint: 'Check that the folder exists and is readable by the server.',
        skillDir: missing,
        root: FIXTURES,
      },
    ]);
  });

  it('refuses a SKILL.md over limits.maxSkillFileBytes without reading it', async () => {
    const result = await load('valid', { ...DEFAULT_LIMITS, maxSkillFileBytes: 20 });
    const size = fs.statSync(path.join(fixture('valid'), 'SKILL.md')).size;
    expect(result.skill).toBeNull();
    expect(summary(result.diagnostics)).toEqual([
      ['error', 'skill-file-too-large', `SKILL.md is ${size} bytes; the limit is 20 bytes (limits.maxSkillFileBytes)`],
    ]);
  });

  it('refuses a generated file over the default cap', async () => {
    const big = `---\nname: huge\ndescription: Huge body.\n---\n${'x'.repeat(DEFAULT_LIMITS.maxSkillFileBytes)}`;
    const dir = writeSkill('huge', big);
    const result = await loadSkill(dir, options('huge'));
    expect(result.skill).toBeNull();
    expect(summary(result.diagnostics)).toEqual([
      [
        'error',
        'skill-file-too-large',
        `SKILL.md is ${Buffer.byteLength(big)} bytes; the limit is ${DEFAULT_LIMITS.maxSkillFileBytes} bytes (limits.maxSkillFileBytes)`,
      ],
    ]);
  });

  it('refuses frontmatter over limits.maxFrontmatterBytes', async () => {
    const result = await load('valid', { ...DEFAULT_LIMITS, maxFrontmatterBytes: 16 });
    expect(result.skill).toBeNull();
    expect(summary(result.diagnostics)).toEqual([
      ['error', 'frontmatter-too-large', 'Frontmatter is 61 bytes; the limit is 16 bytes (limits.maxFrontmatterBytes)'],
    ]);
  });

  it('refuses a SKILL.md that is a directory', async () => {
    const dir = path.join(tmp, 'dir-skill-md');
    fs.mkdirSync(path.join(dir, 'SKILL.md'), { recursive: true });
    const result = await loadSkill(dir, options('dir-skill-md'));
    expect(result.skill).toBeNull();
    expect(summary(result.diagnostics)).toEqual([
      ['error', 'skill-file-not-regular', 'SKILL.md is not a regular file'],
    ]);
  });

  it.skipIf(process.platform === 'win32')('refuses a FIFO named SKILL.md without blocking', async () => {
    const dir = path.join(tmp, 'fifo-skill');
    fs.mkdirSync(dir);
    execFileSync('mkfifo', [path.join(dir, 'SKILL.md')]);
    const result = await loadSkill(dir, options('fifo-skill'));
    expect(summary(result.diagnostics)).toEqual([
      ['error', 'skill-file-not-regular', 'SKILL.md is not a regular file'],
    ]);
    expect(readSkillFileSync(path.join(dir, 'SKILL.md'), 100)).toEqual({
      ok: false,
      code: 'skill-file-not-regular',
      message: 'SKILL.md is not a regular file',
    });
  });
});

describe('loadSkill: every diagnostic says where it is from', () => {
  it('carries skillDir (the real folder) and root, and a hint', async () => {
    const names = fs.readdirSync(FIXTURES);
    expect(names.length).toBeGreaterThan(40);
    let count = 0;
    for (const name of names) {
      const result = await load(name);
      for (const d of result.diagnostics) {
        expect(d).toMatchObject({ skillDir: fs.realpathSync(fixture(name)), root: FIXTURES });
        expect(d.hint?.length, `${name}: ${d.code}`).toBeGreaterThan(10);
        count++;
      }
    }
    expect(count).toBeGreaterThan(40);
  });
});

describe('lenient loading vs strict validation', () => {
  // Where loadSkill loads a skill, its validateMetadata warnings are exactly what `skills validate` prints;
  // the only differences are the YAML it recovers and the checks skills-ref does not make.
  const strictOnly = new Set([
    'unquoted-colon',
    'unquoted-colon-multiline',
    'reserved-character',
    'tag',
    'tag-str',
    'tag-verbatim',
  ]);
  const skillsRefCodes = new Set([
    'unexpected-fields',
    'name-missing',
    'name-empty',
    'name-too-long',
    'name-not-lowercase',
    'name-hyphen-edge',
    'name-consecutive-hyphens',
    'name-invalid-characters',
    'name-mismatch',
    'description-missing',
    'description-empty',
    'description-too-long',
    'compatibility-not-string',
    'compatibility-too-long',
  ]);

  it.each(fs.readdirSync(FIXTURES).sort())('%s', async (name) => {
    const lenient = await load(name);
    const strict = validatePath(fixture(name));
    if (strictOnly.has(name)) {
      expect(lenient.skill).not.toBeNull();
      expect(strict).toHaveLength(1);
      expect(strict[0]).toMatch(/^Invalid YAML in frontmatter: /);
      return;
    }
    const fromRules = lenient.diagnostics.filter((d) => skillsRefCodes.has(d.code) || d.severity === 'error');
    expect(fromRules.map((d) => d.message)).toEqual(strict);
  });
});

describe('findSkillFile', () => {
  it('finds SKILL.md, else skill.md, else nothing', () => {
    expect(findSkillFile(fixture('valid'))).toBe(path.join(fixture('valid'), 'SKILL.md'));
    expect(path.basename(findSkillFile(fixture('lowercase-skill-md')) ?? '').toLowerCase()).toBe('skill.md');
    expect(findSkillFile(fixture('missing-skill-md'))).toBeNull();
    expect(findSkillFile(path.join(tmp, 'nowhere'))).toBeNull();
  });

  it('prefers SKILL.md when both exist', async () => {
    const dir = writeSkill('both-files', '---\nname: both-files\ndescription: upper\n---\n');
    fs.writeFileSync(path.join(dir, 'skill.md'), '---\nname: both-files\ndescription: lower\n---\n');
    const names = fs.readdirSync(dir);
    if (names.length < 2) return; // a case-insensitive filesystem keeps one file: nothing to choose
    expect(findSkillFile(dir)).toBe(path.join(dir, 'SKILL.md'));
    expect((await loadSkill(dir, options('both-files'))).skill?.description).toBe('upper');
  });
});

describe('readSkillFile', () => {
  it('reads the text, size and mtime', async () => {
    const file = path.join(fixture('bom'), 'SKILL.md');
    const stat = fs.statSync(file);
    const expected = {
      ok: true,
      text: fs.readFileSync(file, 'utf8'),
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      invalidUtf8: false,
    };
    expect(await readSkillFile(file, 1000)).toEqual(expected);
    expect(readSkillFileSync(file, 1000)).toEqual(expected);
    // The BOM is kept for splitFrontmatter to strip.
    expect(expected.text.charCodeAt(0)).toBe(0xfeff);
  });

  it('accepts a file of exactly the cap and refuses one byte more', async () => {
    const file = path.join(fixture('valid'), 'SKILL.md');
    const size = fs.statSync(file).size;
    expect((await readSkillFile(file, size)).ok).toBe(true);
    expect(await readSkillFile(file, size - 1)).toEqual({
      ok: false,
      code: 'skill-file-too-large',
      message: `SKILL.md is ${size} bytes; the limit is ${size - 1} bytes (limits.maxSkillFileBytes)`,
    });
  });

  it('reports a missing file by its error code', async () => {
    expect(await readSkillFile(path.join(tmp, 'nope.md'), 10)).toEqual({
      ok: false,
      code: 'skill-file-unreadable',
      message: 'Cannot read nope.md: ENOENT',
    });
  });
});
