import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../types';
import {
  codePointLength,
  compareCodePoints,
  isPySpace,
  isValidSkillName,
  normalizeSkillName,
  pyStrip,
  suggestSkillName,
  validateMetadata,
} from './validate';

const ALLOWED = "['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name']";

function messages(data: Record<string, unknown>, dirName: string | null = 'my-skill'): string[] {
  return validateMetadata(data, dirName).map((d) => d.message);
}

const valid = { name: 'my-skill', description: 'Does one thing.' };

describe('validateMetadata', () => {
  it('accepts a valid skill and every allowed field', () => {
    expect(validateMetadata(valid, 'my-skill')).toEqual([]);
    expect(
      messages({
        ...valid,
        license: 'MIT',
        compatibility: 'Needs git',
        'allowed-tools': 'Read Bash(git:*)',
        metadata: { author: 'x' },
      }),
    ).toEqual([]);
  });

  it('gives every diagnostic a stable code, a severity and a hint', () => {
    const found = validateMetadata({ extra: 1, name: '-Bad__--name-', description: '' }, 'other');
    expect(found.map((d) => [d.code, d.severity])).toEqual([
      ['unexpected-fields', 'warning'],
      ['name-not-lowercase', 'warning'],
      ['name-hyphen-edge', 'warning'],
      ['name-consecutive-hyphens', 'warning'],
      ['name-invalid-characters', 'warning'],
      ['name-mismatch', 'warning'],
      ['description-empty', 'error'],
    ]);
    for (const d of found) expect(d.hint?.length).toBeGreaterThan(10);
  });

  describe('allowed fields', () => {
    it('lists unexpected fields sorted, then the allowed ones as a Python list', () => {
      expect(messages({ ...valid, version: '1.0', author: 'x', Zeta: 'z' })).toEqual([
        `Unexpected fields in frontmatter: Zeta, author, version. Only ${ALLOWED} are allowed.`,
      ]);
    });

    it('sorts by code point, as Python does (not by UTF-16 unit)', () => {
      expect(messages({ ...valid, '😀': 'a', '～': 'b', é: 'c' })).toEqual([
        `Unexpected fields in frontmatter: é, ～, 😀. Only ${ALLOWED} are allowed.`,
      ]);
    });

    it('treats __proto__ as an ordinary unexpected field', () => {
      // fromEntries defines an own property, as parsed YAML does; assignment would set the prototype instead.
      const data: Record<string, unknown> = Object.fromEntries([['__proto__', 'x'], ...Object.entries(valid)]);
      expect(messages(data)).toEqual([`Unexpected fields in frontmatter: __proto__. Only ${ALLOWED} are allowed.`]);
    });
  });

  describe('name', () => {
    it('is required', () => {
      const found = validateMetadata({ description: 'x' }, 'my-skill');
      expect(found).toEqual([
        {
          severity: 'warning',
          code: 'name-missing',
          message: 'Missing required field in frontmatter: name',
          hint: 'Add `name: my-skill` to the frontmatter.',
        },
      ]);
    });

    it.each([
      ['empty', ''],
      ['blank', ' \t '],
      ['ideographic space', '\u3000'],
      ['a list', ['a']],
      ['a mapping', { a: 'b' }],
    ])('must be a non-empty string (%s)', (_label, name) => {
      expect(validateMetadata({ name, description: 'x' }, 'my-skill')).toEqual([
        {
          severity: 'warning',
          code: 'name-empty',
          message: "Field 'name' must be a non-empty string",
          hint: 'Set `name: my-skill`.',
        },
      ]);
    });

    it('is at most 64 characters, counted in code points', () => {
      const long = 'a'.repeat(65);
      expect(messages({ name: long, description: 'x' }, long)).toEqual([
        `Skill name '${long}' exceeds 64 character limit (65 chars)`,
      ]);
      const astral64 = '𠀀'.repeat(64); // 128 UTF-16 units, 64 characters
      expect(messages({ name: astral64, description: 'x' }, astral64)).toEqual([]);
      const astral65 = '𠀀'.repeat(65);
      expect(messages({ name: astral65, description: 'x' }, astral65)).toEqual([
        `Skill name '${astral65}' exceeds 64 character limit (65 chars)`,
      ]);
    });

    it('must be lowercase (uppercase Cyrillic too; Chinese has no case)', () => {
      expect(messages({ name: 'MySkill', description: 'x' }, 'MySkill')).toEqual([
        "Skill name 'MySkill' must be lowercase",
      ]);
      expect(messages({ name: 'НАВЫК', description: 'x' }, 'НАВЫК')).toEqual(["Skill name 'НАВЫК' must be lowercase"]);
      expect(messages({ name: 'навык', description: 'x' }, 'навык')).toEqual([]);
      expect(messages({ name: 'мой-навык', description: 'x' }, 'мой-навык')).toEqual([]);
      expect(messages({ name: '技能', description: 'x' }, '技能')).toEqual([]);
    });

    it('cannot start or end with a hyphen', () => {
      expect(messages({ name: '-a', description: 'x' }, '-a')).toEqual([
        'Skill name cannot start or end with a hyphen',
      ]);
      expect(messages({ name: 'a-', description: 'x' }, 'a-')).toEqual([
        'Skill name cannot start or end with a hyphen',
      ]);
    });

    it('cannot contain consecutive hyphens', () => {
      expect(messages({ name: 'a--b', description: 'x' }, 'a--b')).toEqual([
        'Skill name cannot contain consecutive hyphens',
      ]);
    });

    it.each([
      ['an underscore', 'my_skill'],
      ['a dot', 'my.skill'],
      ['a space inside', 'my skill'],
      ['a combining mark (Devanagari vowel sign)', 'हिन्दी'],
      ['a zero-width no-break space (JS trim would strip it; Python does not)', '\ufeffskill'],
    ])('allows only letters, digits and hyphens (%s)', (_label, name) => {
      expect(messages({ name, description: 'x' }, null)).toEqual([
        `Skill name '${name}' contains invalid characters. Only letters, digits, and hyphens are allowed.`,
      ]);
    });

    it('accepts Unicode letters and digits', () => {
      expect(messages({ name: 'café-2-٣', description: 'x' }, 'café-2-٣')).toEqual([]);
    });

    it('must match the directory name', () => {
      expect(validateMetadata({ name: 'correct-name', description: 'x' }, 'wrong-name')).toEqual([
        {
          severity: 'warning',
          code: 'name-mismatch',
          message: "Directory name 'wrong-name' must match skill name 'correct-name'",
          hint: "Rename the folder to 'correct-name' or set `name: wrong-name`.",
        },
      ]);
    });

    it('hints one valid name, and the folder renamed to it, for a name that breaks several rules', () => {
      const found = validateMetadata({ name: 'PDF_Text', description: 'x' }, 'pdf-tools');
      expect(found.map((d) => d.code)).toEqual(['name-not-lowercase', 'name-invalid-characters', 'name-mismatch']);
      // Not `name: pdf_text` (still invalid) next to "Rename the folder to 'PDF_Text'" (an invalid folder name).
      for (const d of found) expect(d.hint).toBe("Use `name: pdf-text` and rename the folder to 'pdf-text'.");
      expect(validateMetadata({ name: suggestSkillName('PDF_Text'), description: 'x' }, 'pdf-text')).toEqual([]);
    });

    it.each([
      ['PDF_Text', 'pdf-text'],
      ['-My  Skill.v2-', 'my-skill-v2'],
      ['a--b', 'a-b'],
      ['___', 'my-skill'],
      [`${'x'.repeat(63)}_y`, 'x'.repeat(63)],
    ])('suggests a valid name for %j', (name, suggestion) => {
      expect(suggestSkillName(name)).toBe(suggestion);
      expect(isValidSkillName(suggestion)).toBe(true);
    });

    it('offers `name: <folder>` only when the folder name is itself valid', () => {
      expect(validateMetadata({ name: 'pdf-text', description: 'x' }, 'PDF_Text')[0]?.hint).toBe(
        "Rename the folder to 'pdf-text'.",
      );
    });

    it('skips the directory check when there is no directory', () => {
      expect(messages({ name: 'anything', description: 'x' }, null)).toEqual([]);
    });

    it('is trimmed (Python whitespace) and NFKC-normalised before every check; the folder name is NFKC-normalised', () => {
      expect(messages({ name: '  my-skill\n', description: 'x' })).toEqual([]);
      // Decomposed e + combining acute in the file, precomposed in the folder name.
      expect(messages({ name: 'cafe\u0301', description: 'x' }, 'café')).toEqual([]);
      expect(messages({ name: 'café', description: 'x' }, 'cafe\u0301')).toEqual([]);
      // Fullwidth letters and hyphen are compatibility characters: NFKC makes them ASCII.
      expect(messages({ name: 'ｍｙ－ｓｋｉｌｌ', description: 'x' }, 'my-skill')).toEqual([]);
      // Messages show the normalised name but the folder name as found.
      expect(messages({ name: ' ＡＢ ', description: 'x' }, 'ｘ')).toEqual([
        "Skill name 'AB' must be lowercase",
        "Directory name 'ｘ' must match skill name 'AB'",
      ]);
    });

    it('does not trim the directory name (skills-ref compares it as found)', () => {
      expect(messages({ name: 'my-skill', description: 'x' }, 'my-skill ')).toEqual([
        "Directory name 'my-skill ' must match skill name 'my-skill'",
      ]);
    });
  });

  describe('description', () => {
    it('is required (an error: the skill is not loaded)', () => {
      expect(validateMetadata({ name: 'my-skill' }, 'my-skill')).toEqual([
        {
          severity: 'error',
          code: 'description-missing',
          message: 'Missing required field in frontmatter: description',
          hint: 'Add `description:` saying what the skill does and when to use it.',
        },
      ]);
    });

    it.each([
      ['empty', ''],
      ['blank', '  \n '],
      ['a list', ['a']],
      ['a mapping', { a: 'b' }],
    ])('must be a non-empty string (%s)', (_label, description) => {
      expect(validateMetadata({ name: 'my-skill', description }, 'my-skill')).toEqual([
        {
          severity: 'error',
          code: 'description-empty',
          message: "Field 'description' must be a non-empty string",
          hint: 'Write what the skill does and when to use it.',
        },
      ]);
    });

    it('uses Python whitespace: a lone U+FEFF is not blank', () => {
      expect(messages({ name: 'my-skill', description: '\ufeff' })).toEqual([]);
    });

    it('is at most 1024 characters, counted in code points, untrimmed', () => {
      expect(messages({ name: 'my-skill', description: 'x'.repeat(1024) })).toEqual([]);
      expect(validateMetadata({ name: 'my-skill', description: 'x'.repeat(1068) }, 'my-skill')).toEqual([
        {
          severity: 'warning',
          code: 'description-too-long',
          message: 'Description exceeds 1024 character limit (1068 chars)',
          hint: 'Shorten it by 44 characters; move details into the body.',
        },
      ]);
      expect(messages({ name: 'my-skill', description: '😀'.repeat(1024) })).toEqual([]);
      expect(messages({ name: 'my-skill', description: `${'x'.repeat(1024)}\n` })).toEqual([
        'Description exceeds 1024 character limit (1025 chars)',
      ]);
    });
  });

  describe('compatibility', () => {
    it('is optional and at most 500 characters', () => {
      expect(messages({ ...valid, compatibility: 'c'.repeat(500) })).toEqual([]);
      expect(messages({ ...valid, compatibility: 'c'.repeat(501) })).toEqual([
        'Compatibility exceeds 500 character limit (501 chars)',
      ]);
      expect(messages({ ...valid, compatibility: '😀'.repeat(500) })).toEqual([]);
    });

    it('must be a string', () => {
      expect(validateMetadata({ ...valid, compatibility: ['linux'] }, 'my-skill')).toEqual([
        {
          severity: 'warning',
          code: 'compatibility-not-string',
          message: "Field 'compatibility' must be a string",
          hint: 'Describe the environment requirements in one string.',
        },
      ]);
    });
  });

  it('does not check the types of license, allowed-tools or metadata (skills-ref does not)', () => {
    expect(messages({ ...valid, license: ['MIT'], 'allowed-tools': { a: 'b' }, metadata: 'text' })).toEqual([]);
  });

  it('reports every problem in skills-ref order', () => {
    expect(messages({ z: '1', a: '2' }, 'dir')).toEqual([
      `Unexpected fields in frontmatter: a, z. Only ${ALLOWED} are allowed.`,
      'Missing required field in frontmatter: name',
      'Missing required field in frontmatter: description',
    ]);
    const long = `${'Ab_'.repeat(22)}-`;
    expect(messages({ name: long, description: 'd'.repeat(1025), compatibility: 'c'.repeat(501) }, 'dir')).toEqual([
      `Skill name '${long}' exceeds 64 character limit (67 chars)`,
      `Skill name '${long}' must be lowercase`,
      'Skill name cannot start or end with a hyphen',
      `Skill name '${long}' contains invalid characters. Only letters, digits, and hyphens are allowed.`,
      `Directory name 'dir' must match skill name '${long}'`,
      'Description exceeds 1024 character limit (1025 chars)',
      'Compatibility exceeds 500 character limit (501 chars)',
    ]);
  });

  it('never returns a diagnostic without a hint', () => {
    const inputs: Array<[Record<string, unknown>, string | null]> = [
      [{}, null],
      [{ name: '', description: '' }, null],
      [{ name: 'X--', description: 'y'.repeat(2000), compatibility: 1 }, 'q'],
    ];
    const all: Diagnostic[] = inputs.flatMap(([data, dir]) => validateMetadata(data, dir));
    expect(all.length).toBeGreaterThan(5);
    expect(all.filter((d) => !d.hint)).toEqual([]);
  });
});

describe('Python string helpers', () => {
  it("isPySpace is exactly Python 3.11's str.isspace() over the whole BMP", () => {
    // `[c for c in range(0x10000) if chr(c).isspace()]`, as CPython 3.11 prints it.
    const python = new Set([
      0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
      0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
    ]);
    const differ: number[] = [];
    for (let code = 0; code <= 0xffff; code++) if (isPySpace(code) !== python.has(code)) differ.push(code);
    expect(differ).toEqual([]);
  });

  it('pyStrip uses Python whitespace', () => {
    expect(pyStrip('\u3000\u2003 a b \x1f\x85')).toBe('a b');
    expect(pyStrip('\ufeffa\ufeff')).toBe('\ufeffa\ufeff');
    expect(pyStrip(' \t\n ')).toBe('');
    expect(pyStrip('a\u00a0 b')).toBe('a\u00a0 b');
  });

  it('codePointLength counts code points', () => {
    expect(codePointLength('a😀é')).toBe(3);
    // A lone surrogate is a code point of its own, as in Python (and as the string iterator counts).
    for (const text of ['\ud83d', '\ude00', 'a\ud83d', '\ude00\ud83d', '\ud83d\ud83d\ude00', '😀😀', '']) {
      expect(codePointLength(text)).toBe([...text].length);
    }
  });

  it('compareCodePoints orders astral characters after the BMP', () => {
    expect(['😀', '～', 'a'].sort(compareCodePoints)).toEqual(['a', '～', '😀']);
    expect(['ab', 'a'].sort(compareCodePoints)).toEqual(['a', 'ab']);
  });

  it('normalizeSkillName trims then applies NFKC', () => {
    expect(normalizeSkillName(' ｍｙ－ｓｋｉｌｌ ')).toBe('my-skill');
  });
});
