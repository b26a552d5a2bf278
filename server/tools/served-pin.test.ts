/** A served skill's activation is pinned to its listing: a changed listing asks again and refuses to run unseen. */
import { describe, expect, it } from 'vitest';
import type { Skill } from '../skills/types';
import { activationConsent } from './activate-consent';
import type { ConsentToolContext } from './context';
import { changedSinceActivation, changedSkillRefusal } from './served-pin';

function served(resourcesHash: string | null): Skill {
  return {
    name: 'team:runner',
    description: 'Runs the nightly job.',
    dir: '/data/mcp-skills/team/x/runner',
    file: '/data/mcp-skills/team/x/runner/SKILL.md',
    root: '/data/mcp-skills/team',
    relDir: 'x/runner',
    scope: 'project',
    frontmatter: {},
    size: 100,
    mtimeMs: 0,
    diagnostics: [],
    origin: {
      kind: 'mcp',
      server: 'team',
      uri: 'skill://runner/SKILL.md',
      name: 'runner',
      dynamic: resourcesHash === null,
      resourcesHash,
      files: { list: () => [], fetch: async () => ({ ok: true }), fetchAll: async () => ({ ok: true }) },
    },
  } as Skill;
}

function context(skill: Skill, pin: string | null | undefined): ConsentToolContext {
  return {
    skills: new Map([[skill.name, skill]]),
    access: new Map([[skill.name, { permission: 'ask', permissionReason: 'rule team:*' }]]),
    activated: new Set([skill.name]),
    pins: new Map(pin === undefined ? [] : [[skill.name, pin]]),
    display: { appDir: '/app', home: '/home' },
  } as unknown as ConsentToolContext;
}

describe('an active served skill', () => {
  it('asks nothing and runs while its listing is the one it was activated under', async () => {
    const ctx = context(served('h1'), 'h1');
    expect(changedSinceActivation(ctx, served('h1'))).toBe(false);
    expect(changedSkillRefusal(ctx, [served('h1')])).toBeNull();
    expect(activationConsent(ctx, { name: 'team:runner' })?.rule).toBe('allow');
  });

  it('asks again, saying why, and refuses to run once the server changed it (or when no pin was kept)', async () => {
    for (const pin of ['h1', null, undefined]) {
      const skill = served('h2');
      const ctx = context(skill, pin);
      expect(changedSinceActivation(ctx, skill)).toBe(true);
      expect(changedSkillRefusal(ctx, [undefined, skill])).toMatch(/changed the files of skill "team:runner"/);
      const ask = activationConsent(ctx, { name: 'team:runner' });
      expect(ask).toMatchObject({ rule: 'ask', always: true });
      expect(ask?.reason).toContain('Its server changed its files since it was activated in this chat.');
      expect(await ask?.version()).toBe('h2');
    }
  });

  it('a dynamic skill has no listing to pin', () => {
    const skill = served(null);
    expect(changedSinceActivation(context(skill, null), skill)).toBe(false);
  });
});
