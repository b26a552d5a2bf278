/**
 * The access matrix: permission x mode x admin override x grant x explicit/model, through the resolver as the app
 * builds it (config rules, /admin overrides), against the tables in access.ts and modes.ts written out by hand.
 */
import { describe, expect, it } from 'vitest';
import { PERMISSIONS, type Permission, SKILL_MODES, type SkillMode } from '../config';
import type { SkillRoot } from '../skills/types';
import { type Consent, type InvokedBy, refusal, skillConsentRule } from './access';
import { type AccessConfig, type AccessSkill, createAccessResolver } from './resolver';

const appDir = '/srv/app';
const roots: SkillRoot[] = [{ path: `${appDir}/.skills`, scope: 'project', kind: 'app' }];
const skill = (name: string, frontmatter: Record<string, unknown> = {}): AccessSkill => ({
  name,
  root: `${appDir}/.skills`,
  frontmatter: { name, description: 'd', ...frontmatter },
});

/** modes.ts's table: [catalog, model may activate, person may invoke]. */
const MODE_TABLE: Record<SkillMode, ['listed' | 'searchable' | 'hidden', boolean, boolean]> = {
  pinned: ['listed', true, true],
  auto: ['listed', true, true],
  search: ['searchable', true, true],
  manual: ['hidden', false, true],
  off: ['hidden', false, false],
};

function expectedConsent(permission: Permission, granted: boolean, how: InvokedBy): Consent {
  if (permission !== 'ask') return 'none';
  return granted || how === 'explicit' ? 'granted' : 'ask';
}

function resolverFor(permission: Permission, configMode: SkillMode, override: SkillMode | null) {
  const config: AccessConfig = {
    appDir,
    roots,
    permissions: { rules: { 'demo-*': permission } },
    skills: { modes: { 'demo-*': configMode } },
  };
  const resolver = createAccessResolver(config);
  if (override) resolver.setModeOverride('demo-skill', override);
  return resolver;
}

describe('the access matrix', () => {
  const cases = PERMISSIONS.flatMap((permission) =>
    SKILL_MODES.flatMap((configMode) =>
      [null, ...SKILL_MODES].flatMap((override) =>
        [false, true].flatMap((granted) =>
          (['model', 'explicit'] as const).map((how) => ({ permission, configMode, override, granted, how })),
        ),
      ),
    ),
  );

  it.each(cases)('%o', ({ permission, configMode, override, granted, how }) => {
    const access = resolverFor(permission, configMode, override).resolve(skill('demo-skill'), {
      how,
      granted: () => granted,
    });
    const mode = override ?? configMode;
    const [catalog, model, person] = permission === 'deny' ? MODE_TABLE.off : MODE_TABLE[mode];
    expect(access).toMatchObject({
      name: 'demo-skill',
      permission,
      permissionReason: 'rule "demo-*"',
      mode: {
        mode,
        source: override ? 'override' : 'config',
        pattern: 'demo-*',
        configMode,
      },
      effectiveMode: permission === 'deny' ? 'off' : mode,
      catalog,
      pinned: permission !== 'deny' && mode === 'pinned',
      modelMayActivate: model,
      personMayInvoke: person,
      usable: permission !== 'deny' && mode !== 'off',
      consent: expectedConsent(permission, granted, how),
    });
    expect(access.reason.length).toBeGreaterThan(0);
    const refused = refusal(access, how);
    expect(refused === null).toBe(how === 'model' ? model : person);
  });

  it('covers every combination', () => {
    expect(cases).toHaveLength(3 * 5 * 6 * 2 * 2);
  });
});

describe('reasons and refusals in words', () => {
  const resolve = (permission: Permission, mode: SkillMode, how: InvokedBy = 'model') =>
    resolverFor(permission, mode, null).resolve(skill('demo-skill'), { how });

  it('says why a skill is refused, as the model and the person see it', () => {
    expect(refusal(resolve('deny', 'auto'), 'explicit')).toBe(
      'Skill "demo-skill" is not allowed here (rule "demo-*").',
    );
    expect(refusal(resolve('allow', 'off'), 'explicit')).toBe('Skill "demo-skill" is turned off by the operator.');
    expect(refusal(resolve('allow', 'manual'), 'model')).toBe(
      'Skill "demo-skill" is manual: only the person can invoke it, with /demo-skill',
    );
    expect(refusal(resolve('allow', 'manual'), 'explicit')).toBeNull();
  });

  it('describes the decision', () => {
    expect(resolve('deny', 'pinned').reason).toBe('not allowed here (rule "demo-*")');
    expect(resolve('allow', 'off').reason).toBe('turned off by the operator');
    expect(resolve('ask', 'auto').reason).toBe('auto: used by the model and people, asks first (rule "demo-*")');
    expect(resolve('allow', 'manual').reason).toBe('manual: used by people only (/name) (manual mode)');
  });
});

describe("the skill's own invocation flags", () => {
  const resolver = resolverFor('allow', 'auto', null);

  it('disable-model-invocation: hidden from the catalog, the model is refused, /name works', () => {
    const access = resolver.resolve(skill('demo-skill', { 'disable-model-invocation': true }));
    expect(access).toMatchObject({ catalog: 'hidden', modelMayActivate: false, personMayInvoke: true, usable: true });
    expect(refusal(access, 'model')).toMatch(/only the person can invoke it/);
    expect(refusal(access, 'explicit')).toBeNull();
  });

  it('user-invocable: false: not in the slash menu and /name is refused, the model may activate it', () => {
    const access = resolver.resolve(skill('demo-skill', { 'user-invocable': false }));
    expect(access).toMatchObject({ catalog: 'listed', modelMayActivate: true, personMayInvoke: false });
    expect(refusal(access, 'explicit')).toMatch(/only the model activates it/);
    expect(refusal(access, 'model')).toBeNull();
  });

  it('cannot widen what the operator allows, and only a real boolean counts', () => {
    const off = resolverFor('allow', 'off', null).resolve(skill('demo-skill', { 'user-invocable': true }));
    expect(off.personMayInvoke).toBe(false);
    const denied = resolverFor('deny', 'auto', null).resolve(skill('demo-skill', { 'user-invocable': true }));
    expect(denied.personMayInvoke).toBe(false);
    const text = resolver.resolve(skill('demo-skill', { 'disable-model-invocation': 'true' }));
    expect(text.modelMayActivate).toBe(true);
  });
});

describe('the resolver', () => {
  it('resolves every skill once per skill set, and again after an override', () => {
    const resolver = resolverFor('allow', 'auto', null);
    const skills = [skill('demo-a'), skill('demo-b')];
    const first = resolver.resolveAll(skills);
    expect(resolver.resolveAll(skills)).toBe(first);
    resolver.setModeOverride('demo-a', 'off');
    const second = resolver.resolveAll(skills);
    expect(second).not.toBe(first);
    expect(second.get('demo-a')?.usable).toBe(false);
    resolver.setModeOverride('demo-a', null);
    expect(resolver.resolveAll(skills).get('demo-a')?.mode.source).toBe('config');
  });

  it("keeps a person's records per set of switched-off skills, not per person; a grant's are not kept", () => {
    const resolver = resolverFor('allow', 'auto', null);
    const skills = [skill('demo-a'), skill('demo-b')];
    const operator = resolver.resolveAll(skills);
    // Every chat request names its person: without switches, their records are the operator's, kept.
    expect(resolver.resolveAll(skills, { person: 'alice', switchedOff: new Set() })).toBe(operator);
    expect(resolver.resolveAll(skills, { person: 'bob' })).toBe(operator);
    const alice = resolver.resolveAll(skills, { person: 'alice', switchedOff: new Set(['demo-b', 'demo-a']) });
    expect(alice).not.toBe(operator);
    expect(alice.get('demo-a')?.usable).toBe(false);
    // Bob between two of Alice's turns: each keeps theirs; the same switches in another order are the same set.
    expect(resolver.resolveAll(skills, { person: 'bob', switchedOff: new Set(['demo-a']) })).not.toBe(alice);
    expect(resolver.resolveAll(skills, { person: 'alice', switchedOff: new Set(['demo-a', 'demo-b']) })).toBe(alice);
    const granted = { granted: () => true };
    expect(resolver.resolveAll(skills, granted)).not.toBe(resolver.resolveAll(skills, granted));
    resolver.setModeOverride('demo-b', 'off');
    expect(resolver.resolveAll(skills, { person: 'bob' }).get('demo-b')?.usable).toBe(false);
  });

  it('says what consent a skill needs: the rule, with /name as consent given', () => {
    const record = (permission: 'allow' | 'ask' | 'deny') =>
      resolverFor(permission, 'auto', null).resolve(skill('demo-skill'));
    expect(skillConsentRule(record('allow'), 'model')).toBe('allow');
    expect(skillConsentRule(record('deny'), 'explicit')).toBe('deny');
    expect(skillConsentRule(record('ask'), 'model')).toBe('ask');
    expect(skillConsentRule(record('ask'), 'explicit')).toBe('given');
  });
});

describe("a person's switched-off skills", () => {
  const skills = [skill('demo-a'), skill('demo-b')];
  const mine = { person: 'alice', switchedOff: new Set(['demo-a']) };

  it('is absent from the catalog, not activatable and refused on /name, for that person only', () => {
    const resolver = resolverFor('allow', 'auto', null);
    const access = resolver.resolveAll(skills, mine);
    expect(access.get('demo-a')).toMatchObject({
      catalog: 'hidden',
      modelMayActivate: false,
      personMayInvoke: false,
      usable: false,
      switchedOff: true,
      reason: 'switched off by you',
    });
    expect(refusal(access.get('demo-a')!, 'explicit')).toBe(
      'You switched off skill "demo-a". To use it again, switch it back on: type / and choose "Manage skills…".',
    );
    expect(refusal(access.get('demo-a')!, 'model')).toMatch(/switched off by the person/);
    expect(access.get('demo-b')).toMatchObject({ catalog: 'listed', personMayInvoke: true, switchedOff: false });
    // Another person (and the operator's view) are unaffected; their records are not the personal ones.
    const others = resolver.resolveAll(skills, { person: 'bob', switchedOff: new Set() });
    expect(others.get('demo-a')).toMatchObject({ catalog: 'listed', personMayInvoke: true, switchedOff: false });
    expect(resolver.resolveAll(skills).get('demo-a')?.usable).toBe(true);
  });

  it("the operator's setting wins, with its own reason", () => {
    const off = resolverFor('allow', 'off', null).resolveAll(skills, mine).get('demo-a')!;
    expect(off.switchedOff).toBe(false);
    expect(refusal(off, 'explicit')).toBe('Skill "demo-a" is turned off by the operator.');
    const denied = resolverFor('deny', 'auto', null).resolveAll(skills, mine).get('demo-a')!;
    expect(refusal(denied, 'explicit')).toBe('Skill "demo-a" is not allowed here (rule "demo-*").');
  });
});
