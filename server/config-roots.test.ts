import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPermissionPolicy } from './access/policy';
import { defaultRoots, loadConfig } from './config';

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'roots-')));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('defaultRoots', () => {
  it('walks up from the app to the enclosing git root, with .claude/skills beside each .agents/skills', () => {
    const repo = path.join(tmp, 'outer', 'repo');
    const appDir = path.join(repo, 'apps', 'chat');
    fs.mkdirSync(appDir, { recursive: true });
    fs.mkdirSync(path.join(repo, '.git'));
    const home = path.join(tmp, 'home');
    const roots = defaultRoots(appDir, home).map((r) => [path.relative(tmp, r.path), r.scope, r.kind]);
    expect(roots).toEqual([
      ['outer/repo/apps/chat/.skills', 'project', 'app'],
      ['outer/repo/apps/chat/.agents/skills', 'project', 'agents'],
      ['outer/repo/apps/chat/.claude/skills', 'project', 'agents'],
      ['outer/repo/apps/.agents/skills', 'project', 'agents'],
      ['outer/repo/apps/.claude/skills', 'project', 'agents'],
      ['outer/repo/.agents/skills', 'project', 'agents'],
      ['outer/repo/.claude/skills', 'project', 'agents'],
      ['home/.agents/skills', 'user', 'user-agents'],
      ['home/.claude/skills', 'user', 'user-agents'],
      ['home/.skillchat/skills', 'user', 'user-skillchat'],
    ]);
  });

  it('a worktree (a .git file) is a repository root too; outside any repository the walk reaches /', () => {
    const wt = path.join(tmp, 'wt');
    fs.mkdirSync(wt, { recursive: true });
    fs.writeFileSync(path.join(wt, '.git'), 'gitdir: elsewhere\n');
    expect(defaultRoots(wt, '/h').filter((r) => r.kind === 'agents')).toHaveLength(2);
    const outside = defaultRoots('/a/b', '/h', () => false).map((r) => r.path);
    expect(outside).toContain('/.agents/skills');
    expect(outside).toContain('/.claude/skills');
  });

  it("the app's own .claude/skills is trusted like its .agents/skills; a parent's asks", () => {
    const appDir = '/srv/app';
    const policy = createPermissionPolicy({ roots: defaultRoots(appDir, '/h', () => false), appDir, permissions: {} });
    expect(policy.resolve({ name: 'a', root: '/srv/app/.claude/skills' }).permission).toBe('allow');
    expect(policy.resolve({ name: 'a', root: '/srv/.claude/skills' }).permission).toBe('ask');
    expect(policy.resolve({ name: 'a', root: '/h/.claude/skills' }).permission).toBe('allow');
  });
});

describe('extraSkillRoots precedence', () => {
  it('an extra root goes after the defaults, or before every root with "precedence": "first"', () => {
    const appDir = fs.mkdtempSync(path.join(tmp, 'app-'));
    fs.writeFileSync(
      path.join(appDir, 'skillchat.config.json'),
      JSON.stringify({
        skillRoots: ['.skills'],
        extraSkillRoots: [
          '/srv/plain',
          { path: '/srv/theirs', precedence: 'first' },
          { path: '/srv/ours', precedence: 'last' },
        ],
      }),
    );
    const roots = loadConfig({ appDir, home: '/h', env: {} }).roots.map((r) => [r.path, r.precedence ?? null]);
    expect(roots).toEqual([
      ['/srv/theirs', 'first'],
      [path.join(appDir, '.skills'), null],
      ['/srv/plain', null],
      ['/srv/ours', 'last'],
    ]);
  });
});
