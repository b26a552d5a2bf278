import { describe, expect, it } from 'vitest';
import { type EgressConfig, resolveEgressConfig } from './config';
import { readDeclarations } from './declarations';
import {
  approvedTargets,
  createRunGrant,
  grantSummary,
  INSTALLS_SKILL,
  type RunGrantInput,
  type RunSecret,
  type RunSkill,
  ungrantedHosts,
} from './grants';

const config = (network: Record<string, string[]>, secrets: EgressConfig['secrets'] = {}): EgressConfig => ({
  ...resolveEgressConfig({ network: { skills: network } }, '/app', '/app/data'),
  secrets,
});
const skill = (name: string, metadata: Record<string, string> = {}): RunSkill => ({
  name,
  contentHash: `hash-${name}`,
  declares: readDeclarations({ frontmatter: { metadata } }),
});
const grant = (input: Partial<RunGrantInput> & Pick<RunGrantInput, 'config' | 'skills'>) =>
  createRunGrant({ permission: () => 'allow', secrets: [], ...input });
const secret = (s: Partial<RunSecret> & Pick<RunSecret, 'name'>): RunSecret => ({
  value: 'tok-123',
  hosts: [],
  skills: ['*'],
  ...s,
});

describe('a run reaches what its skills are granted', () => {
  const cfg = config({ 'github-*': ['api.github.com', 'uploads.github.com:443'], rates: ['*.rates.test'] });

  it('allows a granted host:port and names the skill whose grant matched', () => {
    const run = grant({ config: cfg, skills: [skill('github-issues')] });
    expect(run.decide({ host: 'api.github.com', port: 443 })).toEqual({ allow: true, skills: ['github-issues'] });
    expect(run.decide({ host: 'uploads.github.com', port: 443 })).toEqual({ allow: true, skills: ['github-issues'] });
  });

  it('refuses another host or port of a granted skill, naming host, port and the active skills', () => {
    const run = grant({ config: cfg, skills: [skill('github-issues')] });
    expect(run.decide({ host: 'example.com', port: 443 })).toEqual({
      allow: false,
      code: 'not-granted',
      reason: 'example.com:443 is not granted to github-issues.',
      skills: ['github-issues'],
    });
    expect(run.decide({ host: 'uploads.github.com', port: 80 })).toMatchObject({ allow: false, code: 'not-granted' });
    const two = grant({ config: cfg, skills: [skill('pdf'), skill('notes')] });
    expect(two.decide({ host: 'api.github.com', port: 443 })).toMatchObject({
      reason: 'api.github.com:443 is not granted to pdf or notes.',
    });
    expect(grant({ config: cfg, skills: [] }).decide({ host: 'api.github.com', port: 443 })).toMatchObject({
      reason: 'api.github.com:443 is not granted: no skill is active in this chat.',
    });
  });

  it('a shell command gets the union of the active skills grants, attributed to the skills that matched', () => {
    const both = config({ 'github-*': ['api.github.com'], 'gh-mirror': ['api.github.com'], rates: ['*.rates.test'] });
    const run = grant({ config: both, skills: [skill('github-issues'), skill('rates'), skill('gh-mirror')] });
    expect(run.decide({ host: 'api.github.com', port: 443 })).toEqual({
      allow: true,
      skills: ['github-issues', 'gh-mirror'],
    });
    expect(run.decide({ host: 'eur.rates.test', port: 80 })).toEqual({ allow: true, skills: ['rates'] });
    expect(run.decide({ host: 'rates.test', port: 80 })).toMatchObject({ allow: false, code: 'not-granted' });
  });

  it('grants from several globs matching one skill add up', () => {
    const run = grant({
      config: config({ '*': ['a.test'], 'github-*': ['b.test:8443'] }),
      skills: [skill('github-x')],
    });
    expect(run.decide({ host: 'a.test', port: 443 }).allow).toBe(true);
    expect(run.decide({ host: 'b.test', port: 8443 }).allow).toBe(true);
  });

  it('a declaration alone grants nothing with permission allow', () => {
    const run = grant({ config: cfg, skills: [skill('weather', { network: 'api.weather.test' })] });
    expect(run.decide({ host: 'api.weather.test', port: 443 })).toMatchObject({ allow: false, code: 'not-granted' });
  });

  it('a denied skill brings no grant', () => {
    const run = grant({ config: cfg, skills: [skill('github-issues')], permission: () => 'deny' });
    expect(run.decide({ host: 'api.github.com', port: 443 })).toMatchObject({ allow: false, code: 'not-granted' });
  });
});

describe('ask: a declared host that is not granted waits for the person', () => {
  const cfg = config({ 'github-*': ['api.github.com'] });
  const weather = skill('weather', { network: 'api.weather.test' });

  it('needs approval, naming the skill, host and port', () => {
    const run = grant({
      config: cfg,
      skills: [weather, skill('github-issues')],
      permission: (s) => (s === 'weather' ? 'ask' : 'allow'),
    });
    expect(run.decide({ host: 'api.weather.test', port: 443 })).toEqual({
      allow: false,
      code: 'needs-approval',
      reason: "api.weather.test:443 is declared by weather but not granted; it needs the person's approval.",
      skills: ['weather'],
    });
    // Not declared: refused outright, no card.
    expect(run.decide({ host: 'other.test', port: 443 })).toMatchObject({ code: 'not-granted' });
  });

  it('is allowed once approved, for that skill and target only', () => {
    const seen: Array<[string, string | undefined, string]> = [];
    const run = grant({
      config: cfg,
      skills: [weather],
      permission: () => 'ask',
      approved: (s, t) => {
        seen.push([s.name, s.contentHash, `${t.host}:${t.port}`]);
        return t.port === 443;
      },
    });
    expect(run.decide({ host: 'api.weather.test', port: 443 })).toEqual({ allow: true, skills: ['weather'] });
    expect(run.decide({ host: 'api.weather.test', port: 80 })).toMatchObject({ code: 'needs-approval' });
    expect(seen[0]).toEqual(['weather', 'hash-weather', 'api.weather.test:443']);
  });

  it('with permission allow the same declaration is simply not granted', () => {
    const run = grant({ config: cfg, skills: [weather], approved: () => true });
    expect(run.decide({ host: 'api.weather.test', port: 443 })).toMatchObject({ code: 'not-granted' });
  });
});

describe('ungrantedHosts: what the approval card names', () => {
  const cfg = config({ 'github-*': ['api.github.com:443'], rates: ['*.rates.test'] });
  const ask = () => 'ask' as const;

  it('lists each declared port the grants do not cover, a pattern without a port as 443 and 80, sorted', () => {
    const github = skill('github-issues', { network: 'uploads.github.com api.github.com [::1]:8080 *.gh.test' });
    expect(ungrantedHosts(cfg, [github], ask)).toEqual([
      {
        skill: 'github-issues',
        hosts: [
          '*.gh.test:443',
          '*.gh.test:80',
          '[::1]:8080',
          'api.github.com:80',
          'uploads.github.com:443',
          'uploads.github.com:80',
        ],
      },
    ]);
  });

  it('leaves out skills whose declarations are all granted, and skills not under ask', () => {
    const rates = skill('rates', { network: 'eur.rates.test *.rates.test' });
    const weather = skill('weather', { network: 'api.weather.test:8443' });
    expect(ungrantedHosts(cfg, [rates, weather, skill('plain')], ask)).toEqual([
      { skill: 'weather', hosts: ['api.weather.test:8443'] },
    ]);
    expect(ungrantedHosts(cfg, [weather], () => 'allow')).toEqual([]);
    expect(ungrantedHosts(cfg, [weather], () => 'deny')).toEqual([]);
  });
});

describe('approvedTargets: a run reaches exactly the declared hosts its approval named', () => {
  const cfg = config({ 'github-*': ['api.github.com'] });
  const weather = skill('weather', { network: 'api.weather.test *.maps.test 127.0.0.1:9000' });
  const run = (approved: Parameters<typeof approvedTargets>[0]) =>
    grant({ config: cfg, skills: [weather], permission: () => 'ask', approved: approvedTargets(approved) });

  it('allows the approved host:ports, wildcards included, and nothing else', () => {
    const approved = run([{ skill: 'weather', hosts: ['*.maps.test:443', '127.0.0.1:9000', 'api.weather.test:443'] }]);
    expect(approved.decide({ host: '127.0.0.1', port: 9000 })).toEqual({ allow: true, skills: ['weather'] });
    expect(approved.decide({ host: 'API.weather.test.', port: 443 })).toEqual({ allow: true, skills: ['weather'] });
    expect(approved.decide({ host: 'eu.maps.test', port: 443 })).toEqual({ allow: true, skills: ['weather'] });
    // Declared but not named by the approval (another port): still the person's to approve.
    expect(approved.decide({ host: 'api.weather.test', port: 80 })).toMatchObject({ code: 'needs-approval' });
    // Not declared: refused outright.
    expect(approved.decide({ host: '127.0.0.1', port: 9001 })).toMatchObject({ code: 'not-granted' });
    expect(approved.decide({ host: 'example.com', port: 443 })).toMatchObject({ code: 'not-granted' });
  });

  it('an approval names hosts for one skill: another skill, or no approval, gets none of them', () => {
    expect(run([]).decide({ host: '127.0.0.1', port: 9000 })).toMatchObject({ code: 'needs-approval' });
    expect(
      run([{ skill: 'rates', hosts: ['127.0.0.1:9000'] }]).decide({ host: '127.0.0.1', port: 9000 }),
    ).toMatchObject({ code: 'needs-approval' });
  });

  it('an approved host the skill does not declare (the card was older than the skill) is not reached', () => {
    expect(
      run([{ skill: 'weather', hosts: ['example.com:443'] }]).decide({ host: 'example.com', port: 443 }),
    ).toMatchObject({ code: 'not-granted' });
  });
});

describe("secrets' headers", () => {
  const cfg = config({ 'github-*': ['api.github.com', 'raw.github.test'], notes: ['api.github.com'] });

  it('adds the header on the secret hosts, with the value in place of {}', () => {
    const run = grant({
      config: cfg,
      skills: [skill('github-issues')],
      secrets: [
        secret({
          name: 'GITHUB_TOKEN',
          header: 'Authorization: Bearer {}',
          hosts: ['api.github.com'],
          skills: ['github-*'],
        }),
      ],
    });
    expect(run.decide({ host: 'api.github.com', port: 443 })).toEqual({
      allow: true,
      skills: ['github-issues'],
      headers: { Authorization: 'Bearer tok-123' },
    });
    // Granted, but not one of the secret's hosts: no header.
    expect(run.decide({ host: 'raw.github.test', port: 443 })).toEqual({ allow: true, skills: ['github-issues'] });
  });

  it('only for skills the secret is for, among those whose grant matched', () => {
    const header = secret({
      name: 'GITHUB_TOKEN',
      header: 'Authorization: Bearer {}',
      hosts: ['api.github.com'],
      skills: ['github-*'],
    });
    const notesOnly = grant({ config: cfg, skills: [skill('notes')], secrets: [header] });
    expect(notesOnly.decide({ host: 'api.github.com', port: 443 })).toEqual({ allow: true, skills: ['notes'] });
    // A secret for a skill that is active but whose grant did not match this target is not added either.
    const cfg2 = config({ 'github-*': ['other.test'], notes: ['api.github.com'] });
    const mixed = grant({ config: cfg2, skills: [skill('notes'), skill('github-issues')], secrets: [header] });
    expect(mixed.decide({ host: 'api.github.com', port: 443 })).toEqual({ allow: true, skills: ['notes'] });
  });

  it('a missing value for a matching host refuses the request with its sentence', () => {
    const run = grant({
      config: cfg,
      skills: [skill('github-issues')],
      secrets: [
        secret({
          name: 'GITHUB_TOKEN',
          value: null,
          missing: 'GITHUB_TOKEN is a personal secret you have not set: add yours on /settings.',
          header: 'Authorization: Bearer {}',
          hosts: ['api.github.com'],
          skills: ['github-*'],
        }),
      ],
    });
    expect(run.decide({ host: 'api.github.com', port: 443 })).toEqual({
      allow: false,
      code: 'secret-missing',
      reason: 'GITHUB_TOKEN is a personal secret you have not set: add yours on /settings.',
      skills: ['github-issues'],
    });
    expect(run.decide({ host: 'raw.github.test', port: 443 }).allow).toBe(true);
  });
});

describe('grantSummary: declared beside granted', () => {
  it('marks declared-not-granted and granted-not-declared hosts and secrets', () => {
    const cfg = config(
      { 'github-*': ['api.github.com', 'extra.test:8443'], 'github-issues': ['api.github.com:443'] },
      {
        GITHUB_TOKEN: {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own syntax
          value: '${env:GITHUB_TOKEN}',
          skills: ['github-*'],
          hosts: ['api.github.com'],
          header: 'Authorization: Bearer {}',
          personal: false,
        },
        OTHER_KEY: { skills: ['github-issues'], hosts: [], personal: false },
        NOT_MINE: { skills: ['pdf'], hosts: [], personal: false },
      },
    );
    const declares = readDeclarations({
      frontmatter: {
        metadata: { network: 'api.github.com uploads.github.com bad:0', secrets: 'GITHUB_TOKEN SLACK_TOKEN' },
      },
    });
    expect(grantSummary(cfg, { name: 'github-issues', declares })).toEqual({
      skill: 'github-issues',
      hosts: [
        { pattern: 'api.github.com', declared: true, granted: true },
        { pattern: 'uploads.github.com', declared: true, granted: false },
        { pattern: 'extra.test:8443', declared: false, granted: true },
      ],
      secrets: [
        { name: 'GITHUB_TOKEN', declared: true, granted: true, mode: 'header' },
        { name: 'SLACK_TOKEN', declared: true, granted: false },
        { name: 'OTHER_KEY', declared: false, granted: true, mode: 'env' },
      ],
      problems: ['"bad:0": the port must be a number from 1 to 65535.'],
    });
  });

  it('a grant of one port of a declared host is its own row, declared', () => {
    const cfg = config({ weather: ['api.weather.test:443'] });
    const declares = readDeclarations({ frontmatter: { metadata: { network: 'api.weather.test' } } });
    expect(grantSummary(cfg, { name: 'weather', declares }).hosts).toEqual([
      { pattern: 'api.weather.test', declared: true, granted: false },
      { pattern: 'api.weather.test:443', declared: true, granted: true },
    ]);
  });
});

describe('package installs (runtime.installs allow) are no skill grant', () => {
  const cfg = config({ mirror: ['registry.npmjs.org'] });
  const indexes = ['pypi.org:443', 'files.pythonhosted.org:443', 'registry.npmjs.org:443', 'index.test:8080'];

  it('every run reaches the index hosts, read-only, as the pseudo-skill (installs)', () => {
    const run = grant({ config: cfg, skills: [], installs: indexes });
    expect(run.decide({ host: 'pypi.org', port: 443 })).toEqual({
      allow: true,
      skills: [INSTALLS_SKILL],
      limited: true,
    });
    expect(run.decide({ host: 'index.test', port: 8080 })).toMatchObject({ allow: true, limited: true });
    expect(INSTALLS_SKILL).toBe('(installs)');
  });

  it('another port or host of an index is refused, and without installs the indexes are nobody’s', () => {
    const run = grant({ config: cfg, skills: [skill('pdf')], installs: indexes });
    expect(run.decide({ host: 'pypi.org', port: 80 })).toMatchObject({ allow: false, code: 'not-granted' });
    expect(run.decide({ host: 'index.test', port: 443 })).toMatchObject({ allow: false, code: 'not-granted' });
    const off = grant({ config: cfg, skills: [skill('pdf')] });
    expect(off.decide({ host: 'pypi.org', port: 443 })).toMatchObject({ allow: false, code: 'not-granted' });
  });

  it('a skill granted an index host keeps its own grant there', () => {
    const run = grant({ config: cfg, skills: [skill('mirror')], installs: indexes });
    expect(run.decide({ host: 'registry.npmjs.org', port: 443 })).toEqual({ allow: true, skills: ['mirror'] });
  });
});
