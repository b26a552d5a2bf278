import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAccessResolver } from '../../access/resolver';
import { DEFAULT_LIMITS } from '../../config';
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

describe('disable-model-invocation and user-invocable', () => {
  const load = async (name: string, extra: string) =>
    (await loadSkill(write(name, extra), { root: dir, scope: 'project', relDir: name, limits: DEFAULT_LIMITS })).skill!;
  const resolver = createAccessResolver({
    roots: [{ path: dir, scope: 'project', kind: 'app' }],
    appDir: dir,
    permissions: {},
  });

  it('reach the access resolver from a real SKILL.md', async () => {
    const manual = await load('manual-only', 'disable-model-invocation: true\n');
    const modelOnly = await load('model-only', 'user-invocable: false\n');
    expect(manual.frontmatter['disable-model-invocation']).toBe(true);
    expect(modelOnly.frontmatter['user-invocable']).toBe(false);
    const a = resolver.resolve(manual);
    expect([a.catalog, a.modelMayActivate, a.personMayInvoke]).toEqual(['hidden', false, true]);
    const b = resolver.resolve(modelOnly);
    expect([b.catalog, b.modelMayActivate, b.personMayInvoke]).toEqual(['listed', true, false]);
    expect(manual.diagnostics.map((d) => d.message)).toEqual(['Recognised extension field: disable-model-invocation']);
  });

  it('leave the skill as usual when false/true (the defaults) and warn on anything but a boolean', async () => {
    const plain = await load('defaults', 'disable-model-invocation: false\nuser-invocable: true\n');
    const r = resolver.resolve(plain);
    expect([r.catalog, r.modelMayActivate, r.personMayInvoke]).toEqual(['listed', true, true]);
    const odd = await load('odd-flag', 'disable-model-invocation: sometimes\n');
    expect(odd.frontmatter['disable-model-invocation']).toBeUndefined();
    expect(odd.diagnostics.map((d) => d.code)).toContain('extension-not-boolean');
    expect(resolver.resolve(odd).modelMayActivate).toBe(true);
  });

  it('stay unexpected fields for skills-ref validate', () => {
    expect(validatePath(write('strict-flags', 'user-invocable: false\n'))).toEqual([
      "Unexpected fields in frontmatter: user-invocable. Only ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] are allowed.",
    ]);
  });
});
