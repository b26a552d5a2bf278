/**
 * The cold-scan shortcuts in `loadSkill`: only the head of a large SKILL.md is decoded, the body is only checked
 * for valid UTF-8, and discovery's `resolved` hint skips the realpath and the second stat. Same outcomes as before.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../config';
import { parseFrontmatterTree, splitFrontmatter } from './frontmatter';
import { loadSkill } from './skill-file';

let tmp: string;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-skill-file-')));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function write(name: string, content: string | Buffer): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), content);
  return dir;
}

const options = (name: string) => ({ root: tmp, scope: 'project' as const, relDir: name, limits: DEFAULT_LIMITS });
const body = `${'Some body text. '.repeat(3000)}\n`;

describe('loadSkill on large files', () => {
  it('a large body: loaded from the head, invalid UTF-8 in the body still reported', async () => {
    const dir = write(
      'big-body',
      Buffer.concat([
        Buffer.from(`---\nname: big-body\ndescription: Has a long body.\n---\n${body}`),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('\nend\n'),
      ]),
    );
    const { skill, diagnostics } = await loadSkill(dir, options('big-body'));
    expect(skill?.description).toBe('Has a long body.');
    expect(diagnostics.map((d) => d.code)).toEqual(['skill-file-invalid-utf8']);
  });

  it('frontmatter that closes after the first 16 KB is still found', async () => {
    const long = 'word '.repeat(3800).trim();
    const dir = write('late-fence', `---\nname: late-fence\ndescription: Short.\nlicense: ${long}\n---\n${body}`);
    const { skill } = await loadSkill(dir, options('late-fence'));
    expect(skill?.frontmatter.license).toBe(long);
  });

  it('a line cut at the head boundary never passes for a fence', async () => {
    // "----x" starts 3 bytes before the 16 KB mark: a head cut mid-line would end in "---", a fence. Cut at whole
    // lines, the outcome is the whole file's: "----x" is no fence, and it is not valid YAML either.
    const header = '---\nname: cut-fence\ndescription: Cut.\n';
    const filler = `license: ${'a'.repeat(16 * 1024 - 3 - header.length - 'license: '.length - 1)}\n`;
    const text = `${header}${filler}----x\n---\n${body}`;
    expect(text.indexOf('----x')).toBe(16 * 1024 - 3);
    const dir = write('cut-fence', text);
    const { skill, diagnostics } = await loadSkill(dir, options('cut-fence'));
    const split = splitFrontmatter(text);
    const whole = split.ok ? parseFrontmatterTree(split.yaml, DEFAULT_LIMITS) : null;
    expect(skill).toBeNull();
    expect(whole?.ok).toBe(false);
    expect(diagnostics.map((d) => d.message)).toEqual([whole && !whole.ok ? whole.message : '']);
  });

  it('the resolved hint gives the same skill as resolving', async () => {
    const dir = write('hinted', '---\nname: hinted\ndescription: Hinted.\n---\nBody.\n');
    const plain = await loadSkill(dir, options('hinted'));
    const hinted = await loadSkill(dir, {
      ...options('hinted'),
      resolved: { realDir: dir, file: path.join(dir, 'SKILL.md') },
    });
    expect(hinted).toEqual(plain);
  });
});
