import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultRoots, loadConfig } from '../config';
import { addGrant, hasGrant, listGrants, openDb, revokeGrant, sqliteDatabase } from '../db';
import { skillContentHash } from './content-hash';
import { createPermissionPolicy } from './policy';

const appDir = '/srv/work/app';
const home = '/home/me';
const roots = defaultRoots(appDir, home);
const base = { roots, appDir };

describe('permission policy', () => {
  it('defaults by source: app and user folders allow, .agents/skills above the app asks', async () => {
    const policy = createPermissionPolicy({ ...base, permissions: {} });
    expect(policy.resolve({ name: 'a', root: `${appDir}/.skills` }).permission).toBe('allow');
    expect(policy.resolve({ name: 'a', root: `${appDir}/.agents/skills` }).permission).toBe('allow');
    expect(policy.resolve({ name: 'a', root: '/srv/work/.agents/skills' })).toEqual({
      permission: 'ask',
      reason: 'default for .agents/skills in a parent folder',
    });
    expect(policy.resolve({ name: 'a', root: `${home}/.agents/skills` }).permission).toBe('allow');
  });

  it('operator rules beat defaults, the most specific glob wins', async () => {
    const policy = createPermissionPolicy({
      ...base,
      permissions: { rules: { '*': 'allow', 'pdf-*': 'ask', 'pdf-evil': 'deny' }, defaults: { app: 'deny' } },
    });
    expect(policy.resolve({ name: 'pdf-reader', root: `${appDir}/.skills` })).toEqual({
      permission: 'ask',
      reason: 'rule "pdf-*"',
    });
    expect(policy.resolve({ name: 'pdf-evil', root: `${home}/.agents/skills` }).permission).toBe('deny');
    expect(policy.resolve({ name: 'csv', root: '/srv/work/.agents/skills' }).permission).toBe('allow');
  });

  it('reads rules from the config file, rejecting unknown permissions', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-perm-'));
    fs.writeFileSync(
      path.join(dir, 'skillchat.config.json'),
      JSON.stringify({ permissions: { rules: { x: 'maybe' } } }),
    );
    expect(() => loadConfig({ appDir: dir, env: {} })).toThrow(/permissions\.rules\.x/);
    fs.writeFileSync(
      path.join(dir, 'skillchat.config.json'),
      JSON.stringify({ permissions: { rules: { x: 'deny' } } }),
    );
    expect(loadConfig({ appDir: dir, env: {} }).permissions.rules).toEqual({ x: 'deny' });
    fs.rmSync(dir, { recursive: true });
  });
});

describe('content hash and grants', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-hash-'));
  const skillDir = path.join(dir, 'demo');
  fs.mkdirSync(path.join(skillDir, 'scripts'), { recursive: true });
  fs.mkdirSync(path.join(skillDir, 'references'), { recursive: true });
  fs.writeFileSync(path.join(skillDir, 'SKILL.md'), '---\nname: demo\ndescription: d\n---\nbody\n');
  fs.writeFileSync(path.join(skillDir, 'scripts', 'run.sh'), 'echo hi\n');
  fs.writeFileSync(path.join(skillDir, 'references', 'README.md'), 'docs\n');
  const skill = { dir: skillDir, file: path.join(skillDir, 'SKILL.md') };
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('changes when SKILL.md or a script changes, not when a reference does', async () => {
    const first = await skillContentHash(skill);
    fs.writeFileSync(path.join(skillDir, 'references', 'README.md'), 'more docs\n');
    expect(await skillContentHash(skill)).toBe(first);
    fs.writeFileSync(path.join(skillDir, 'scripts', 'run.sh'), 'echo bye\n');
    const second = await skillContentHash(skill);
    expect(second).not.toBe(first);
    fs.appendFileSync(skill.file, 'edited\n');
    expect(await skillContentHash(skill)).not.toBe(second);
  });

  it('a grant holds for its content hash only and can be revoked', async () => {
    const db = sqliteDatabase(openDb(':memory:'));
    const demo = { kind: 'skill', key: 'demo' };
    const grant = await addGrant(demo, 'hash-1', new Date(), db);
    expect((await addGrant(demo, 'hash-1', new Date(), db)).id).toBe(grant.id);
    expect(await hasGrant(demo, 'hash-1', db)).toBe(true);
    expect(await hasGrant(demo, 'hash-2', db)).toBe(false);
    expect(await hasGrant({ kind: 'mcp-tool', key: 'demo' }, 'hash-1', db)).toBe(false);
    expect((await listGrants(db)).map((g) => g.subject)).toEqual(['demo']);
    expect(await revokeGrant(grant.id, new Date(), db)).toBe(true);
    expect(await hasGrant(demo, 'hash-1', db)).toBe(false);
    expect(await revokeGrant(grant.id, new Date(), db)).toBe(false);
  });
});
