import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeZip, skillMd } from '../../test/install/test-zip';
import { createPermissionPolicy } from '../access/policy';
import { type AppConfig, loadConfig } from '../config';
import { AppError } from '../errors';
import { createSkillRegistry, type SkillRegistry } from '../skills/registry';
import type { UploadedFile } from './install';
import {
  countPersonalSkills,
  deletePersonalSkills,
  installPersonalSkill,
  listPersonalSkills,
  loadPersonalSkills,
  skillsForPerson,
  uninstallPersonalSkill,
} from './personal';
import { InstallError } from './problems';

let tmp: string;
let config: AppConfig;
let registry: SkillRegistry;

/** A folder as `<input webkitdirectory>` sends it: paths start with the folder's name. */
function folder(name: string, extra: Record<string, string> = {}, description?: string): UploadedFile[] {
  const files: Record<string, string> = { 'SKILL.md': skillMd(name, description), ...extra };
  return Object.entries(files).map(([p, text]) => ({ path: `${name}/${p}`, bytes: Buffer.from(text) }));
}

function appWith(overrides: Partial<AppConfig['install']> = {}) {
  const c = { ...config, install: { ...config.install, ...overrides } };
  return { config: c, registry };
}

async function refused(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => expect.fail('expected a refusal'),
    (e: unknown) => e,
  );
}

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-personal-')));
  const shared = path.join(tmp, 'shared');
  fs.mkdirSync(path.join(shared, 'team-report'), { recursive: true });
  fs.writeFileSync(path.join(shared, 'team-report', 'SKILL.md'), skillMd('team-report'));
  config = loadConfig({
    appDir: tmp,
    home: path.join(tmp, 'home'),
    env: { SKILLCHAT_SKILL_ROOTS: shared, SKILLCHAT_INSTALL_ROOT: path.join(tmp, 'data', 'skills') },
  });
  registry = createSkillRegistry(config);
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('personal skills', () => {
  it('a folder upload is installed for its owner alone: in their skills, not in anyone else’s or the shared scan', async () => {
    const result = await installPersonalSkill(
      appWith(),
      'alice',
      { kind: 'files', files: folder('my-notes') },
      'install',
    );
    expect(result).toMatchObject({ name: 'my-notes', applied: true });
    // Beside the install root, keyed by the account id.
    expect(fs.existsSync(path.join(tmp, 'data', 'personal-skills', 'alice', 'my-notes', 'SKILL.md'))).toBe(true);

    const alice = await skillsForPerson(appWith(), 'alice');
    expect(alice.skills.map((s) => s.name)).toEqual(['my-notes', 'team-report']);
    expect(alice.matcher.rank('my-notes things', 5).map((m) => m.name)).toContain('my-notes');
    const bob = await skillsForPerson(appWith(), 'bob');
    expect(bob.skills.map((s) => s.name)).toEqual(['team-report']);
    expect(bob.matcher.rank('my-notes things', 5).map((m) => m.name)).not.toContain('my-notes');
    expect((await registry.rescan()).skills.map((s) => s.name)).toEqual(['team-report']);
  });

  it('an archive goes the same way, and Remove takes it out of the person’s skills', async () => {
    const bytes = await makeZip([{ name: 'zipped/SKILL.md', content: skillMd('zipped') }]);
    await installPersonalSkill(appWith(), 'alice', { kind: 'archive-bytes', bytes }, 'install');
    expect((await listPersonalSkills(appWith(), 'alice')).map((s) => s.name)).toEqual(['zipped']);
    await uninstallPersonalSkill(appWith(), 'alice', 'zipped');
    expect(await listPersonalSkills(appWith(), 'alice')).toEqual([]);
    const missing = await refused(uninstallPersonalSkill(appWith(), 'alice', 'zipped'));
    expect(missing).toMatchObject({ code: 'not_found:personal-skill' });
  });

  it('a shared skill’s name is refused with a 409 that says so, so /name is never ambiguous', async () => {
    const error = await refused(
      installPersonalSkill(appWith(), 'alice', { kind: 'files', files: folder('team-report') }, 'install'),
    );
    expect(error).toBeInstanceOf(InstallError);
    expect((error as InstallError).kind).toBe('conflict');
    expect((error as InstallError).problems[0]).toMatchObject({ code: 'name-taken' });
    expect((error as InstallError).message).toContain('A shared skill named "team-report" is on this server');
  });

  it('a shared skill installed later under the same name wins; the personal one is listed as hidden', async () => {
    await installPersonalSkill(appWith(), 'alice', { kind: 'files', files: folder('later') }, 'install');
    fs.mkdirSync(path.join(tmp, 'shared', 'later'));
    fs.writeFileSync(path.join(tmp, 'shared', 'later', 'SKILL.md'), skillMd('later', 'The shared one.'));
    await registry.rescan();
    const alice = await skillsForPerson(appWith(), 'alice');
    expect(alice.skills.filter((s) => s.name === 'later').map((s) => s.description)).toEqual(['The shared one.']);
    expect(await listPersonalSkills(appWith(), 'alice')).toEqual([
      { name: 'later', description: 'Does later things.', hiddenByShared: true },
    ]);
  });

  it('an upload is checked as an archive is: paths, caps, hidden text', async () => {
    const leaving = await refused(
      installPersonalSkill(
        appWith(),
        'alice',
        { kind: 'files', files: [...folder('sneaky'), { path: 'sneaky/../../x.md', bytes: Buffer.from('x') }] },
        'install',
      ),
    );
    expect((leaving as InstallError).problems.map((p) => p.code)).toContain('parent-path');
    const many = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`f${i}.md`, 'x']));
    const capped = await refused(
      installPersonalSkill(appWith({ maxFiles: 3 }), 'alice', { kind: 'files', files: folder('big', many) }, 'install'),
    );
    expect((capped as InstallError).problems.map((p) => p.code)).toContain('too-many-files');
    const hidden = { ...config, install: config.install, limits: { ...config.limits, hiddenText: 'block' as const } };
    const blocked = await refused(
      installPersonalSkill(
        { config: hidden, registry },
        'alice',
        { kind: 'files', files: folder('tagged', { 'notes.md': 'Hello\u{E0041}\u{E0042} world' }) },
        'install',
      ),
    );
    expect((blocked as InstallError).problems.map((p) => p.code)).toEqual(['hidden-text']);
    expect(fs.readdirSync(path.join(tmp, 'data', 'personal-skills', 'alice'))).toEqual([]);
  });

  it('the operator’s switch (install.personalSkills: false in the config file) refuses installs and hides them', async () => {
    await installPersonalSkill(appWith(), 'alice', { kind: 'files', files: folder('mine') }, 'install');
    fs.writeFileSync(path.join(tmp, 'skillchat.config.json'), JSON.stringify({ install: { personalSkills: false } }));
    const off = loadConfig({
      appDir: tmp,
      home: path.join(tmp, 'home'),
      env: { SKILLCHAT_SKILL_ROOTS: path.join(tmp, 'shared'), SKILLCHAT_INSTALL_ROOT: config.install.root },
    });
    expect(off.install.personalSkills).toBe(false);
    expect(config.install.personalSkills).toBeUndefined(); // on by default
    const host = { config: off, registry };
    expect(await loadPersonalSkills(off, 'alice')).toEqual([]);
    expect((await skillsForPerson(host, 'alice')).skills.map((s) => s.name)).toEqual(['team-report']);
    const error = await refused(installPersonalSkill(host, 'alice', { kind: 'files', files: folder('x') }, 'install'));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 403, code: 'forbidden:personal-skills' });
  });

  it('the permission of a personal skill is the `personal` default, which the operator may set', async () => {
    await installPersonalSkill(appWith(), 'alice', { kind: 'files', files: folder('mine') }, 'install');
    const [skill] = await loadPersonalSkills(config, 'alice');
    expect(createPermissionPolicy(config).resolve(skill!)).toEqual({
      permission: 'allow',
      reason: "default for a person's own skills",
    });
    const asking = createPermissionPolicy({ ...config, permissions: { defaults: { personal: 'ask' } } });
    expect(asking.resolve(skill!).permission).toBe('ask');
  });

  it('counts per person for /admin, and deleting a person deletes their skills', async () => {
    await installPersonalSkill(appWith(), 'alice', { kind: 'files', files: folder('one') }, 'install');
    await installPersonalSkill(appWith(), 'alice', { kind: 'files', files: folder('two') }, 'install');
    await installPersonalSkill(appWith(), 'bob', { kind: 'files', files: folder('three') }, 'install');
    expect(await countPersonalSkills(config)).toEqual(
      new Map([
        ['alice', 2],
        ['bob', 1],
      ]),
    );
    await deletePersonalSkills(config.install.root, 'alice');
    expect(await loadPersonalSkills(config, 'alice')).toEqual([]);
    expect(await countPersonalSkills(config)).toEqual(new Map([['bob', 1]]));
  });

  it('an id that is not a plain token never becomes a folder', async () => {
    expect(await loadPersonalSkills(config, '../bob')).toEqual([]);
    await expect(
      installPersonalSkill(appWith(), '../bob', { kind: 'files', files: folder('x') }, 'install'),
    ).rejects.toThrow('not a plain token');
  });
});
