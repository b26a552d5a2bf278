import { describe, expect, it } from 'vitest';
import { recordsForModes } from '../access/testing';
import { buildBudgetedCatalog } from '../skills/catalog/budget';
import { countTokens, renderCatalog } from '../skills/catalog/catalog';
import { skillRecord } from '../skills/testing';
import type { DiscoveryResult, Skill } from '../skills/types';
import { buildAdminOverview } from './overview';
import { createPathDisplay, replaceFolders } from './paths';

const appDir = '/srv/app';
const home = '/srv/app/.e2e/home';
const roots = [
  { path: '/srv/app/.skills', scope: 'project' as const, kind: 'app' as const },
  { path: '/srv/.agents/skills', scope: 'project' as const, kind: 'agents' as const },
  { path: '/.agents/skills', scope: 'project' as const, kind: 'agents' as const },
  { path: `${home}/.agents/skills`, scope: 'user' as const, kind: 'user-agents' as const },
];

function skill(name: string, root: string, extra: Partial<Skill> = {}): Skill {
  return skillRecord(name, root, { scope: root.startsWith(home) ? 'user' : 'project', ...extra });
}

const pdfWarning = {
  severity: 'warning' as const,
  code: 'unexpected-fields' as const,
  message: 'Unexpected fields in frontmatter: colour. Only [...] are allowed.',
  hint: 'Remove it.',
  skillDir: '/srv/app/.skills/pdf',
  root: '/srv/app/.skills',
};
const scan: DiscoveryResult = {
  skills: [skill('csv', '/srv/app/.skills'), skill('pdf', '/srv/app/.skills', { diagnostics: [pdfWarning] })],
  diagnostics: [
    {
      severity: 'warning',
      code: 'root-missing',
      message: 'Configured skill root does not exist: /srv/.agents/skills.',
    },
    pdfWarning,
    {
      severity: 'error',
      code: 'description-missing',
      message: 'Missing required field in frontmatter: description',
      hint: 'Add `description:`.',
      skillDir: `${home}/.agents/skills/team/broken`,
      root: `${home}/.agents/skills`,
    },
    {
      severity: 'warning',
      code: 'name-collision',
      message: `Skill 'pdf' at ${home}/.agents/skills/pdf is shadowed by /srv/app/.skills/pdf, which takes precedence; this copy is not loaded.`,
      skillDir: `${home}/.agents/skills/pdf`,
      root: `${home}/.agents/skills`,
    },
  ],
  collisions: [{ name: 'pdf', winner: '/srv/app/.skills/pdf', losers: [`${home}/.agents/skills/pdf`] }],
  roots: [
    { ...roots[0]!, exists: true, skillCount: 2 },
    { ...roots[1]!, exists: false, skillCount: 0 },
    { ...roots[2]!, exists: false, skillCount: 0 },
    { ...roots[3]!, exists: true, skillCount: 0 },
  ],
  scannedAt: 1_800_000_000_000,
  durationMs: 12.5,
};
const activations = {
  events: [
    {
      id: 7,
      chatId: 'c1',
      skillName: 'pdf',
      how: 'explicit' as const,
      at: new Date(1_800_000_000_500),
      chatTitle: 'Read a PDF',
      userId: 'local',
    },
  ],
  total: 1,
  bySkill: [
    { skillName: 'pdf', count: 2, explicitCount: 1, modelCount: 1, chatCount: 1, lastAt: new Date(1_800_000_000_500) },
  ],
};

const overview = buildAdminOverview(scan, activations, createPathDisplay({ appDir, home, roots }));

describe('buildAdminOverview', () => {
  it('lists roots in precedence order with display paths', () => {
    expect(overview.roots.map((r) => [r.precedence, r.path, r.exists, r.skillCount])).toEqual([
      [1, '.skills', true, 2],
      [2, '../.agents/skills', false, 0],
      [3, '../../.agents/skills', false, 0],
      [4, '.e2e/home/.agents/skills', true, 0],
    ]);
  });

  it('has a row per loaded skill, plus the folders that failed to load', () => {
    const byName = new Map(overview.skills.map((s) => [s.name, s]));
    expect(byName.get('pdf')).toMatchObject({
      status: 'warnings',
      problemCount: 1,
      activationCount: 2,
      lastActivatedAt: 1_800_000_000_500,
      location: '.skills/pdf',
      root: '.skills',
      relDir: 'pdf',
      scope: 'project',
      catalogTokens: countTokens('{"name":"pdf","description":"Does pdf things."}'),
    });
    expect(byName.get('csv')).toMatchObject({ status: 'ok', activationCount: 0, lastActivatedAt: null });
    expect(byName.get('broken')).toMatchObject({
      status: 'not-loaded',
      catalogTokens: null,
      scope: 'user',
      relDir: 'team/broken',
      location: '.e2e/home/.agents/skills/team/broken',
    });
    // The shadowed copy is a collision, not a second row.
    expect(overview.skills).toHaveLength(3);
  });

  it('lists every diagnostic, errors first, with the path inside its root and no absolute path', () => {
    expect(overview.problems.map((p) => [p.severity, p.code, p.skillPath])).toEqual([
      ['error', 'description-missing', 'team/broken'],
      ['warning', 'root-missing', null],
      ['warning', 'unexpected-fields', 'pdf'],
      ['warning', 'name-collision', 'pdf'],
    ]);
    expect(overview.problems[1]!.message).toBe('Configured skill root does not exist: ../.agents/skills.');
    // Nested roots must not be substituted twice (`/.agents/skills` occurs inside the home root).
    expect(overview.problems[3]!.message).toBe(
      "Skill 'pdf' at .e2e/home/.agents/skills/pdf is shadowed by .skills/pdf, which takes precedence; this copy is not loaded.",
    );
    expect(JSON.stringify(overview)).not.toMatch(/\/srv\//);
  });

  it('explains what was not loaded and which copy won a collision', () => {
    expect(overview.notLoaded).toEqual([
      {
        name: 'broken',
        location: '.e2e/home/.agents/skills/team/broken',
        reasons: ['Missing required field in frontmatter: description'],
      },
    ]);
    expect(overview.collisions).toEqual([
      { name: 'pdf', winner: '.skills/pdf', shadowed: ['.e2e/home/.agents/skills/pdf'] },
    ]);
  });

  it('shows the exact catalog and activations', () => {
    expect(overview.catalog.text).toBe(renderCatalog(scan.skills));
    expect(overview.catalog.tokens).toBe(countTokens(overview.catalog.text));
    expect(overview.activations.events).toEqual([
      { id: 7, at: 1_800_000_000_500, skillName: 'pdf', chatId: 'c1', chatTitle: 'Read a PDF', how: 'explicit' },
    ]);
    expect(overview.scannedAt).toBe(scan.scannedAt);
    expect(overview.durationMs).toBe(12.5);
  });

  it('shows absolute paths only when asked', () => {
    const absolute = buildAdminOverview(scan, activations, createPathDisplay({ appDir, home, roots }, 'absolute'));
    expect(absolute.roots[0]!.path).toBe('/srv/app/.skills');
    expect(absolute.problems[1]!.message).toContain('/srv/.agents/skills');
  });
});

describe('modes on the admin page', () => {
  it('shows the budgeted catalog: off and manual skills are not in it, search skills are counted as not listed', () => {
    const three: DiscoveryResult = { ...scan, skills: [...scan.skills, skill('xlsx', '/srv/app/.skills')] };
    const given = recordsForModes({ csv: 'off', xlsx: 'search' });
    const pdf = recordsForModes({ pdf: 'auto' }).get('pdf')!;
    const access = new Map([...given, ['pdf', { ...pdf, mode: { ...pdf.mode, source: 'default' as const } }]]);
    const catalog = buildBudgetedCatalog(three.skills, { budgetTokens: 4000, access });
    const withModes = buildAdminOverview(three, activations, createPathDisplay({ appDir, home, roots }), {
      catalog,
      access,
    });
    expect(withModes.catalog).toEqual({
      text: catalog.catalog,
      tokens: countTokens(catalog.catalog),
      budgetTokens: 4000,
      listed: 1,
      notListed: 1,
      hidden: 1,
      shortened: 0,
    });
    expect(withModes.catalog.text).toContain('"name":"pdf"');
    expect(withModes.catalog.text).not.toContain('"name":"csv"');
    const byName = new Map(withModes.skills.map((s) => [s.name, s]));
    expect(byName.get('csv')).toMatchObject({ inCatalog: false, mode: { mode: 'off', source: 'config' } });
    expect(byName.get('pdf')).toMatchObject({ inCatalog: true, mode: { mode: 'auto', source: 'default' } });
    expect(byName.get('broken')).toMatchObject({ inCatalog: false, mode: null });
  });
});

describe('permissions on the admin page', () => {
  const auto = recordsForModes({ pdf: 'auto', csv: 'auto' });
  const access = new Map([
    ['pdf', { ...auto.get('pdf')!, permission: 'ask' as const, permissionReason: 'rule "pdf"' }],
    ['csv', { ...auto.get('csv')!, permissionReason: 'default' }],
  ]);
  const permissions = {
    grants: [
      {
        id: 3,
        kind: 'skill',
        userId: null,
        skillName: 'pdf',
        contentHash: 'a'.repeat(64),
        grantedAt: 1_800_000_001_000,
        current: true,
      },
    ],
    decisions: [
      {
        id: 1,
        at: 1_800_000_001_000,
        skillName: 'pdf',
        decision: 'always' as const,
        chatId: 'c1',
        chatTitle: 'Read a PDF',
      },
      { id: 2, at: 1_800_000_002_000, skillName: 'pdf', decision: 'denied' as const, chatId: null, chatTitle: null },
    ],
    scriptRuns: [
      {
        id: 9,
        at: 1_800_000_003_000,
        kind: 'script' as const,
        userId: null,
        skillName: 'csv',
        script: 'scripts/run.sh',
        args: ['a b'],
        exitCode: 0,
        timedOut: false,
        durationMs: 12,
        chatId: 'c1',
        chatTitle: 'Read a PDF',
      },
    ],
  };
  const withPermissions = buildAdminOverview(scan, activations, createPathDisplay({ appDir, home, roots }), {
    permissions,
    access,
  });

  it("gives each loaded skill the policy's permission and reason, and none to a skill that was not loaded", () => {
    const byName = new Map(withPermissions.skills.map((s) => [s.name, s.permission]));
    expect(byName.get('pdf')).toEqual({ permission: 'ask', reason: 'rule "pdf"' });
    expect(byName.get('csv')).toEqual({ permission: 'allow', reason: 'default' });
    expect(byName.get('broken')).toBeNull();
  });

  it('passes grants, decisions and script runs through', () => {
    expect(withPermissions.permissions).toEqual({
      grants: permissions.grants,
      decisions: permissions.decisions,
      scriptRuns: permissions.scriptRuns,
    });
  });

  it('without permission data, shows no permission and empty logs', () => {
    expect(overview.skills.every((s) => s.permission === null)).toBe(true);
    expect(overview.permissions).toEqual({ grants: [], decisions: [], scriptRuns: [] });
  });
});

describe('replaceFolders', () => {
  const folders = [
    { abs: '/a/b', display: 'B' },
    { abs: '/a/b/c', display: 'C' },
  ];

  it('replaces whole folders only, longest first, once', () => {
    expect(replaceFolders('at /a/b/c/x and /a/b/y', folders)).toBe('at C/x and B/y');
    expect(replaceFolders('"/a/b" (/a/b/c).', folders)).toBe('"B" (C).');
    expect(replaceFolders('/a/bc and /x/a/b and /a/b.bak', folders)).toBe('/a/bc and /x/a/b and /a/b.bak');
    expect(replaceFolders('ends with /a/b.', folders)).toBe('ends with B.');
  });
});
