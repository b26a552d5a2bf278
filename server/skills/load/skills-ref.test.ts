import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../config';
import {
  htmlEscape,
  pythonJsonDumps,
  pythonPathString,
  pythonStr,
  readProperties,
  SkillRefError,
  skillDirArgument,
  toPrompt,
  validatePath,
} from './skills-ref';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'validate');
const fixture = (name: string) => path.join(FIXTURES, name);
const ALLOWED = "['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name']";

let tmp: string;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skills-ref-test-')));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function writeSkill(dirName: string, frontmatter: string, fileName = 'SKILL.md'): string {
  const dir = path.join(tmp, dirName);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, fileName), `---\n${frontmatter}---\nBody\n`);
  return dir;
}

function inDirectory<T>(dir: string, run: () => T): T {
  const previous = process.cwd();
  process.chdir(dir);
  try {
    return run();
  } finally {
    process.chdir(previous);
  }
}

/** What `skills-ref validate` prints for each fixture (after `  - `); `[]` means `Valid skill: ...`. */
const VALIDATE_EXPECTATIONS: Record<string, string[]> = {
  valid: [],
  'all-fields': [],
  'allowed-tools-list': [],
  'allowed-tools-mapping': [],
  'license-not-string': [],
  'metadata-non-string': [],
  'metadata-not-mapping': [],
  'version-string': [],
  'folded-description': [],
  'literal-description': [],
  'lowercase-skill-md': [],
  'xml-special': [],
  // skills-ref itself fails these three (BOM; `---` split); we deliberately do not.
  bom: [],
  'dashes-in-value': [],
  'dots-closing-fence': [],
  crlf: [],
  // ` #` is a comment in YAML for skills-ref too.
  'hash-comment': [],
  // YAML's white space is space and tab only: a trailing NBSP is part of the value (501 characters).
  'compatibility-nbsp': ['Compatibility exceeds 500 character limit (501 chars)'],
  'license-nbsp': [],
  // Only skill.md is committed: the test adds SKILL.md as a symlink loop in a copy (a loop in the tree would break
  // Next's build, which traces the project folder).
  'skill-md-symlink-loop': [],
  'name-mismatch': ["Directory name 'name-mismatch' must match skill name 'other-name'"],
  'missing-name': ['Missing required field in frontmatter: name'],
  'empty-name': ["Field 'name' must be a non-empty string"],
  'name-not-string': ["Field 'name' must be a non-empty string"],
  'missing-description': ['Missing required field in frontmatter: description'],
  'empty-description': ["Field 'description' must be a non-empty string"],
  'description-not-string': ["Field 'description' must be a non-empty string"],
  'description-too-long': ['Description exceeds 1024 character limit (1068 chars)'],
  'unknown-field': [`Unexpected fields in frontmatter: author, version. Only ${ALLOWED} are allowed.`],
  'proto-key': [`Unexpected fields in frontmatter: __proto__. Only ${ALLOWED} are allowed.`],
  'uppercase-name': [
    "Skill name 'Uppercase-Name' must be lowercase",
    "Directory name 'uppercase-name' must match skill name 'Uppercase-Name'",
  ],
  'name-too-long': [
    `Skill name '${'a'.repeat(70)}' exceeds 64 character limit (70 chars)`,
    `Directory name 'name-too-long' must match skill name '${'a'.repeat(70)}'`,
  ],
  'leading-hyphen': [
    'Skill name cannot start or end with a hyphen',
    "Directory name 'leading-hyphen' must match skill name '-leading-hyphen'",
  ],
  'trailing-hyphen': [
    'Skill name cannot start or end with a hyphen',
    "Directory name 'trailing-hyphen' must match skill name 'trailing-hyphen-'",
  ],
  'consecutive-hyphens': [
    'Skill name cannot contain consecutive hyphens',
    "Directory name 'consecutive-hyphens' must match skill name 'consecutive--hyphens'",
  ],
  'invalid-characters': [
    "Skill name 'invalid_characters' contains invalid characters. Only letters, digits, and hyphens are allowed.",
    "Directory name 'invalid-characters' must match skill name 'invalid_characters'",
  ],
  'chinese-name': ["Directory name 'chinese-name' must match skill name '技能'"],
  'cyrillic-uppercase': [
    "Skill name 'НАВЫК' must be lowercase",
    "Directory name 'cyrillic-uppercase' must match skill name 'НАВЫК'",
  ],
  'compatibility-too-long': ['Compatibility exceeds 500 character limit (501 chars)'],
  'compatibility-not-string': ["Field 'compatibility' must be a string"],
  'missing-skill-md': ['Missing required file: SKILL.md'],
  'no-frontmatter': ['SKILL.md must start with YAML frontmatter (---)'],
  'unclosed-frontmatter': ['SKILL.md frontmatter not properly closed with ---'],
  'not-a-mapping': ['SKILL.md frontmatter must be a YAML mapping'],
  'empty-frontmatter': ['SKILL.md frontmatter must be a YAML mapping'],
  'duplicate-keys': ['Invalid YAML in frontmatter: Map keys must be unique at line 4, column 1'],
  'alias-bomb': ['Invalid YAML in frontmatter: Excessive alias count indicates a resource exhaustion attack'],
  tag: ['Invalid YAML in frontmatter: tags are not allowed (!!binary) at line 3, column 14'],
  // strictyaml refuses every tag, the schema's own included.
  'tag-str': ['Invalid YAML in frontmatter: tags are not allowed (!!str) at line 3, column 14'],
  'tag-verbatim': ['Invalid YAML in frontmatter: tags are not allowed (!<tag:yaml.org,2002:str>) at line 3, column 14'],
  'unquoted-colon': [
    'Invalid YAML in frontmatter: Nested mappings are not allowed in compact mappings at line 3, column 14',
  ],
  'unquoted-colon-multiline': [
    'Invalid YAML in frontmatter: Nested mappings are not allowed in compact mappings at line 3, column 14',
  ],
  'reserved-character': [
    'Invalid YAML in frontmatter: Plain value cannot start with reserved character @ at line 3, column 14',
  ],
};

describe('validatePath', () => {
  it('has an expectation for every fixture folder', () => {
    expect(fs.readdirSync(FIXTURES).sort()).toEqual(Object.keys(VALIDATE_EXPECTATIONS).sort());
  });

  it.each(Object.entries(VALIDATE_EXPECTATIONS))('%s', (name, expected) => {
    expect(validatePath(fixture(name))).toEqual(expected);
  });

  it('reports a path that does not exist, printed the way Python prints a Path', () => {
    const relative = path.relative(process.cwd(), FIXTURES);
    expect(validatePath(`./${relative}//nope/`)).toEqual([`Path does not exist: ${relative}/nope`]);
    expect(validatePath(path.join(tmp, 'nope'))).toEqual([`Path does not exist: ${tmp}/nope`]);
  });

  it('reports a file that is not a SKILL.md as not a directory', () => {
    const readme = path.join(fixture('missing-skill-md'), 'README.md');
    expect(validatePath(readme)).toEqual([`Not a directory: ${readme}`]);
  });

  it('treats a path to SKILL.md (any case) as its folder', () => {
    expect(validatePath(path.join(fixture('name-mismatch'), 'SKILL.md'))).toEqual([
      "Directory name 'name-mismatch' must match skill name 'other-name'",
    ]);
    expect(validatePath(path.join(fixture('lowercase-skill-md'), 'skill.md'))).toEqual([]);
  });

  it('compares the name with the real folder name for . and .. (skills-ref would compare with "")', () => {
    expect(inDirectory(fixture('valid'), () => validatePath('.'))).toEqual([]);
    expect(inDirectory(path.join(fixture('valid'), '..'), () => validatePath('valid/.'))).toEqual([]);
    expect(inDirectory(fixture('valid'), () => validatePath('SKILL.md'))).toEqual([]);
  });

  it('validates Unicode folder names, NFKC-normalised on both sides', () => {
    expect(validatePath(writeSkill('技能', 'name: 技能\ndescription: Chinese.\n'))).toEqual([]);
    expect(validatePath(writeSkill('мой-навык', 'name: мой-навык\ndescription: Russian.\n'))).toEqual([]);
    expect(validatePath(writeSkill('café', 'name: "cafe\u0301"\ndescription: Decomposed.\n'))).toEqual([]);
  });

  it('refuses files over the size cap with our own message', () => {
    expect(validatePath(fixture('valid'), { ...DEFAULT_LIMITS, maxSkillFileBytes: 10 })).toEqual([
      `SKILL.md is ${fs.statSync(path.join(fixture('valid'), 'SKILL.md')).size} bytes; the limit is 10 bytes (limits.maxSkillFileBytes)`,
    ]);
  });
});

describe('skillDirArgument and pythonPathString', () => {
  it.each([
    ['a//b/./c/', 'a/b/c'],
    ['./a', 'a'],
    ['', '.'],
    ['.', '.'],
    ['/', '/'],
    ['//x', '//x'],
    ['///x', '/x'],
    ['a/../b', 'a/../b'],
  ])('str(Path(%j)) is %j', (input, expected) => {
    expect(pythonPathString(input)).toBe(expected);
  });

  it('maps a SKILL.md file to its folder', () => {
    expect(skillDirArgument(path.join(fixture('valid'), 'SKILL.md'))).toBe(fixture('valid'));
    expect(skillDirArgument(`${fixture('valid')}/`)).toBe(fixture('valid'));
    expect(inDirectory(fixture('valid'), () => skillDirArgument('SKILL.md'))).toBe('.');
    expect(inDirectory(fixture('valid'), () => skillDirArgument('./SKILL.md'))).toBe('.');
    // A missing SKILL.md is not a file, so it stays as given (then "Path does not exist").
    expect(skillDirArgument(path.join(tmp, 'SKILL.md'))).toBe(path.join(tmp, 'SKILL.md'));
  });
});

describe('readProperties', () => {
  it('keeps the Unicode spaces YAML keeps (NBSP, U+3000): only space and tab are YAML white space', () => {
    const result = readProperties(fixture('license-nbsp'));
    expect(result.ok && JSON.parse(result.json).license).toBe('\u3000MIT\u00a0');
  });

  it('prints name, description, then the optional fields in skills-ref order, indented by 2', () => {
    expect(readProperties(fixture('all-fields'))).toEqual({
      ok: true,
      json: [
        '{',
        '  "name": "all-fields",',
        '  "description": "Uses every field the spec allows.",',
        '  "license": "Apache-2.0",',
        '  "compatibility": "Requires git and network access",',
        '  "allowed-tools": "Bash(git:*) Read",',
        '  "metadata": {',
        '    "author": "Example Org",',
        '    "version": "1.0"',
        '  }',
        '}',
      ].join('\n'),
    });
  });

  it('orders the fields by skills-ref, not by the file', () => {
    const dir = writeSkill(
      'reordered',
      'metadata:\n  z: 1\nallowed-tools: Read\ncompatibility: any\nlicense: MIT\ndescription: d\nname: reordered\n',
    );
    expect(JSON.parse(readPropertiesJson(dir))).toBeTruthy();
    expect(Object.keys(JSON.parse(readPropertiesJson(dir)))).toEqual([
      'name',
      'description',
      'license',
      'compatibility',
      'allowed-tools',
      'metadata',
    ]);
  });

  it('escapes non-ASCII like Python (ensure_ascii, surrogate pairs, lowercase hex)', () => {
    expect(readPropertiesJson(fixture('xml-special'))).toBe(
      [
        '{',
        '  "name": "xml-special",',
        '  "description": "Use <foo> & \\"bar\\" with \'baz\'; \\u00fcn\\u00efc\\u00f6d\\u00e9 \\ud83d\\ude00"',
        '}',
      ].join('\n'),
    );
    expect(readPropertiesJson(fixture('cyrillic-uppercase'))).toContain(
      '"name": "\\u041d\\u0410\\u0412\\u042b\\u041a"',
    );
  });

  it('strips name and description (Python strip, no NFKC) and keeps newlines escaped', () => {
    const dir = writeSkill('stripped', 'name: "  ｆｗ  "\ndescription: |\n  Line 1\n  Line 2\n');
    expect(readPropertiesJson(dir)).toBe(
      ['{', '  "name": "\\uff46\\uff57",', '  "description": "Line 1\\nLine 2"', '}'].join('\n'),
    );
  });

  it('stringifies metadata values like Python str(): nested values become their repr', () => {
    expect(readPropertiesJson(fixture('metadata-non-string'))).toBe(
      [
        '{',
        '  "name": "metadata-non-string",',
        '  "description": "Metadata with nested values.",',
        '  "metadata": {',
        '    "team": "search",',
        '    "tags": "[\'a\', \\"it\'s\\"]",',
        '    "owner": "{\'name\': \'Ana\'}"',
        '  }',
        '}',
      ].join('\n'),
    );
  });

  it('passes other field values through as parsed (lists, strings, empty strings)', () => {
    expect(JSON.parse(readPropertiesJson(fixture('allowed-tools-list')))['allowed-tools']).toEqual(['Read', 'Grep']);
    expect(JSON.parse(readPropertiesJson(fixture('metadata-not-mapping'))).metadata).toBe('just text');
    const dir = writeSkill('empties', 'name: empties\ndescription: d\nlicense:\nmetadata:\ncompatibility: []\n');
    expect(readPropertiesJson(dir)).toBe(
      ['{', '  "name": "empties",', '  "description": "d",', '  "license": "",', '  "compatibility": []', '}'].join(
        '\n',
      ),
    );
  });

  it('keeps metadata keys in file order, numeric-looking keys included', () => {
    const dir = writeSkill('key-order', 'name: key-order\ndescription: d\nmetadata:\n  b: x\n  "10": y\n  a: z\n');
    expect(readPropertiesJson(dir)).toContain('"metadata": {\n    "b": "x",\n    "10": "y",\n    "a": "z"\n  }');
  });

  it.each([
    ['missing-name', 'Missing required field in frontmatter: name'],
    ['missing-description', 'Missing required field in frontmatter: description'],
    ['empty-name', "Field 'name' must be a non-empty string"],
    ['name-not-string', "Field 'name' must be a non-empty string"],
    ['empty-description', "Field 'description' must be a non-empty string"],
    ['no-frontmatter', 'SKILL.md must start with YAML frontmatter (---)'],
    ['unclosed-frontmatter', 'SKILL.md frontmatter not properly closed with ---'],
    ['not-a-mapping', 'SKILL.md frontmatter must be a YAML mapping'],
    [
      'unquoted-colon',
      'Invalid YAML in frontmatter: Nested mappings are not allowed in compact mappings at line 3, column 14',
    ],
  ])('%s: reports the error skills-ref prints after "Error: "', (name, error) => {
    expect(readProperties(fixture(name))).toEqual({ ok: false, error });
  });

  it('reports a folder without SKILL.md (skills-ref does not check the path exists first)', () => {
    expect(readProperties(fixture('missing-skill-md'))).toEqual({
      ok: false,
      error: `SKILL.md not found in ${fixture('missing-skill-md')}`,
    });
    expect(readProperties(`${tmp}//nope/`)).toEqual({ ok: false, error: `SKILL.md not found in ${tmp}/nope` });
  });

  it('does not validate: a mismatched or unknown-field skill still prints', () => {
    expect(readProperties(fixture('name-mismatch'))).toMatchObject({ ok: true });
    expect(readProperties(fixture('unknown-field'))).toMatchObject({ ok: true });
  });
});

function readPropertiesJson(p: string): string {
  const result = readProperties(p);
  if (!result.ok) throw new Error(result.error);
  return result.json;
}

describe('toPrompt', () => {
  it('prints an empty block for no skills', () => {
    expect(toPrompt([])).toBe('<available_skills>\n</available_skills>');
  });

  it('prints name, description and location on their own lines, escaped like html.escape', () => {
    const xmlSpecial = fs.realpathSync(fixture('xml-special'));
    const valid = fs.realpathSync(fixture('valid'));
    expect(toPrompt([fixture('xml-special'), path.join(fixture('valid'), 'SKILL.md')])).toBe(
      [
        '<available_skills>',
        '<skill>',
        '<name>',
        'xml-special',
        '</name>',
        '<description>',
        'Use &lt;foo&gt; &amp; &quot;bar&quot; with &#x27;baz&#x27;; ünïcödé 😀',
        '</description>',
        '<location>',
        `${xmlSpecial}/SKILL.md`,
        '</location>',
        '</skill>',
        '<skill>',
        '<name>',
        'valid',
        '</name>',
        '<description>',
        'A valid skill used as the baseline.',
        '</description>',
        '<location>',
        `${valid}/SKILL.md`,
        '</location>',
        '</skill>',
        '</available_skills>',
      ].join('\n'),
    );
  });

  it('prints the location raw (skills-ref does not escape it), resolving relative paths and symlinks', () => {
    const dir = writeSkill(`special-location-&-<>'"`, 'name: special-location\ndescription: Special path.\n');
    const link = path.join(tmp, 'link-to-special');
    fs.symlinkSync(dir, link, 'dir');
    const prompt = inDirectory(tmp, () => toPrompt(['link-to-special']));
    expect(prompt).toContain(`<location>\n${tmp}/special-location-&-<>'"/SKILL.md\n</location>`);
  });

  it('prints the committed fixture whose folder holds an ampersand with the ampersand raw', () => {
    const dir = path.join(import.meta.dirname, '..', 'fixtures', 'to-prompt', 'location-raw-&-amp');
    expect(toPrompt([dir])).toContain(`<location>\n${fs.realpathSync(dir)}/SKILL.md\n</location>`);
  });

  it('reads skill.md when SKILL.md is a symlink loop, as Path.exists() does; so does discovery', async () => {
    const dir = path.join(tmp, 'loop', 'skill-md-symlink-loop');
    fs.cpSync(fixture('skill-md-symlink-loop'), dir, { recursive: true });
    fs.symlinkSync('SKILL.md', path.join(dir, 'SKILL.md'));
    expect(() => fs.statSync(path.join(dir, 'SKILL.md'))).toThrow(/ELOOP/);
    expect(validatePath(dir)).toEqual([]);
    expect(toPrompt([dir])).toMatch(/\/skill-md-symlink-loop\/skill\.md\n<\/location>/);
    const { discoverSkills } = await import('../discovery/discovery');
    const found = await discoverSkills([{ path: path.dirname(dir), scope: 'project', kind: 'configured' }], {
      limits: DEFAULT_LIMITS,
    });
    expect(found.skills.map((skill) => skill.name)).toEqual(['skill-md-symlink-loop']);
  });

  it('uses skill.md as the location when that is the file', () => {
    expect(toPrompt([fixture('lowercase-skill-md')])).toMatch(/\/lowercase-skill-md\/skill\.md\n<\/location>/);
  });

  it('uses the stripped name and description, including for lenient-only skills it does not validate', () => {
    const dir = writeSkill('Loose_Name', 'name: "  Loose_Name "\ndescription: "  padded  "\n');
    expect(toPrompt([dir])).toContain('<name>\nLoose_Name\n</name>\n<description>\npadded\n</description>');
  });

  it('throws SkillRefError with the message skills-ref prints after "Error: "', () => {
    expect(() => toPrompt([fixture('valid'), fixture('missing-description')])).toThrowError(
      new SkillRefError('Missing required field in frontmatter: description'),
    );
    expect(() => toPrompt([path.join(tmp, 'gone')])).toThrowError(`SKILL.md not found in ${tmp}/gone`);
    let caught: unknown;
    try {
      toPrompt([fixture('unquoted-colon')]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SkillRefError);
    expect((caught as Error).message).toBe(
      'Invalid YAML in frontmatter: Nested mappings are not allowed in compact mappings at line 3, column 14',
    );
  });
});

describe('Python formatting helpers', () => {
  it('htmlEscape matches html.escape (quote=True)', () => {
    expect(htmlEscape(`<a href="x">Tom & 'Jerry'</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;Tom &amp; &#x27;Jerry&#x27;&lt;/a&gt;',
    );
  });

  it('pythonStr matches str() of strings, lists and dicts', () => {
    expect(pythonStr('plain')).toBe('plain');
    expect(pythonStr(['a', "it's", 'say "hi"', `both ' "`])).toBe(`['a', "it's", 'say "hi"', 'both \\' "']`);
    expect(pythonStr(new Map([['k', ['x\ny', 'tab\t', 'back\\slash']]]))).toBe(
      "{'k': ['x\\ny', 'tab\\t', 'back\\\\slash']}",
    );
    expect(pythonStr(['\x01', '\u200b', '\u00a0', 'é😀'])).toBe("['\\x01', '\\u200b', '\\xa0', 'é😀']");
    expect(pythonStr([])).toBe('[]');
    expect(pythonStr(new Map())).toBe('{}');
  });

  it('pythonJsonDumps matches json.dumps(indent=2) for nested and empty collections', () => {
    const value = new Map<string, string | string[] | Map<string, string>>([
      ['a', []],
      ['b', new Map()],
      ['c', ['x', 'y']],
      ['d', '\u007f\u0000"\\/'],
    ]);
    expect(pythonJsonDumps(value)).toBe(
      [
        '{',
        '  "a": [],',
        '  "b": {},',
        '  "c": [',
        '    "x",',
        '    "y"',
        '  ],',
        '  "d": "\\u007f\\u0000\\"\\\\/"',
        '}',
      ].join('\n'),
    );
  });
});
