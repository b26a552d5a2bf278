import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../config';
import { loadSkill } from './skill-file';
import { validatePath } from './skills-ref';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'extensions-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, extra: string): string {
  const skillDir = path.join(dir, name);
  fs.mkdirSync(skillDir, { recursive: true });
  fs.writeFileSync(
    path.join(skillDir, 'SKILL.md'),
    `---\nname: ${name}\ndescription: Fixes issues.\n${extra}---\n\nFix issue $1.\n`,
  );
  return skillDir;
}

describe('argument-hint and when_to_use', () => {
  it('are recognised extensions in the app: info, copied to the frontmatter', async () => {
    const skillDir = write('fix-issue', 'argument-hint: "[issue-number]"\nwhen_to_use: When a bug is reported.\n');
    const { skill } = await loadSkill(skillDir, {
      root: dir,
      scope: 'project',
      relDir: 'fix-issue',
      limits: DEFAULT_LIMITS,
    });
    expect(skill?.frontmatter['argument-hint']).toBe('[issue-number]');
    expect(skill?.frontmatter.when_to_use).toBe('When a bug is reported.');
    expect(skill?.diagnostics.map((d) => [d.severity, d.code, d.message])).toEqual([
      ['info', 'extension-fields', 'Recognised extension fields: argument-hint, when_to_use'],
    ]);
  });

  it('leave other unknown fields as skills-ref words them', async () => {
    const skillDir = write('mixed', 'argument-hint: x\nfoo: bar\n');
    const { skill } = await loadSkill(skillDir, {
      root: dir,
      scope: 'project',
      relDir: 'mixed',
      limits: DEFAULT_LIMITS,
    });
    expect(skill?.diagnostics.map((d) => d.message)).toEqual([
      "Unexpected fields in frontmatter: foo. Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.",
      'Recognised extension field: argument-hint',
    ]);
  });

  it('stay unexpected fields for skills-ref validate (byte-compatible)', () => {
    const skillDir = write('strict', 'argument-hint: x\nwhen_to_use: y\n');
    expect(validatePath(skillDir)).toEqual([
      "Unexpected fields in frontmatter: argument-hint, when_to_use. Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.",
    ]);
  });
});
