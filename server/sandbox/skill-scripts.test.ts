/** Which files of a skill the sandbox can run. Links are made in a temp dir (git cannot hold them portably). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSkillScripts, skillHasScripts } from './skill-scripts';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-skill-scripts-'));
  fs.mkdirSync(path.join(tmp, 'outside'));
  fs.writeFileSync(path.join(tmp, 'outside', 'secret.sh'), 'echo secret\n');
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('skillHasScripts / listSkillScripts', () => {
  it('finds .sh and .py files anywhere in the skill', async () => {
    expect(await skillHasScripts(path.join(FIXTURES, 'validation-skill'))).toBe(true);
    expect(await listSkillScripts(path.join(FIXTURES, 'validation-skill'))).toEqual(['scripts/echo.sh']);
    const scripts = await listSkillScripts(path.join(FIXTURES, 'probe-skill'));
    expect(scripts).toContain('scripts/hello.py');
    expect(scripts).toContain('scripts/args.sh');
    expect(scripts).not.toContain('scripts/notes.txt');
  });

  it('says no for a skill with references only, or no folder at all', async () => {
    expect(await skillHasScripts(path.join(FIXTURES, 'no-scripts'))).toBe(false);
    expect(await skillHasScripts(path.join(tmp, 'nope'))).toBe(false);
  });

  it('does not count a link to a script outside the skill', async () => {
    const dir = path.join(tmp, 'link-only');
    fs.mkdirSync(path.join(dir, 'scripts'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'SKILL.md'), 'skill');
    fs.symlinkSync('../../outside/secret.sh', path.join(dir, 'scripts', 'run.sh'));
    expect(await skillHasScripts(dir)).toBe(false);
  });
});
