/**
 * Discovery's spec in executable form. Committed fixtures live in `fixtures/discovery/<case>/`; what git cannot
 * hold (symlinks, `.git` and `node_modules` folders, deep trees, files edited between scans) is built in a temp dir.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../config';
import { loadSkill } from '../load/skill-file';
import type { DiscoveryResult, RootKind, SkillRoot, SkillScope } from '../types';
import { undecidedShadowing } from './collisions';
import { createScanCache, discoverSkills, type SkillLoader } from './discovery';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'discovery');
const posixOnly = process.platform === 'win32' ? it.skip : it;

function root(p: string, scope: SkillScope = 'project', kind: RootKind = 'configured'): SkillRoot {
  return { path: p, scope, kind };
}

function fixture(...segments: string[]): string {
  return path.join(FIXTURES, ...segments);
}

function names(result: DiscoveryResult): string[] {
  return result.skills.map((s) => s.name);
}

function codes(result: DiscoveryResult): string[] {
  return result.diagnostics.map((d) => d.code);
}

function writeSkill(dir: string, name: string, description = `The ${name} skill.`): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`);
}

function countingLoader(): { load: SkillLoader; calls: string[] } {
  const calls: string[] = [];
  const load: SkillLoader = (dir, options) => {
    calls.push(options.relDir || '(root)');
    return loadSkill(dir, options);
  };
  return { load, calls };
}

let tmp: string;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-discovery-')));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A fresh folder under the temp dir per test. */
function scratch(name: string): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

describe('precedence and collisions', () => {
  it('the project root beats the user roots; every loser is recorded in precedence order', async () => {
    const project = fixture('precedence', 'project');
    const user = fixture('precedence', 'user');
    const user2 = fixture('precedence', 'user2');
    const result = await discoverSkills([root(project), root(user, 'user'), root(user2, 'user')], {
      limits: DEFAULT_LIMITS,
    });

    expect(names(result)).toEqual(['pdf', 'project-only', 'user-only']);
    const pdf = result.skills.find((s) => s.name === 'pdf')!;
    expect(pdf.description).toBe('Project copy of the PDF skill.');
    expect(pdf.scope).toBe('project');
    expect(pdf.root).toBe(project);
    expect(pdf.relDir).toBe('pdf');

    expect(result.collisions).toEqual([
      { name: 'pdf', winner: path.join(project, 'pdf'), losers: [path.join(user, 'pdf'), path.join(user2, 'pdf')] },
    ]);
    const warnings = result.diagnostics.filter((d) => d.code === 'name-collision');
    expect(warnings).toHaveLength(2);
    for (const w of warnings) {
      expect(w.severity).toBe('warning');
      expect(w.message).toContain(path.join(project, 'pdf'));
    }
    expect(warnings.map((w) => w.skillDir)).toEqual([path.join(user, 'pdf'), path.join(user2, 'pdf')]);
    expect(warnings[0]!.message).toContain(path.join(user, 'pdf'));

    expect(result.roots.map((r) => [r.exists, r.skillCount])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
    ]);
  });

  it('a configured root hidden by an earlier one without a stated precedence is reported; a stated one is not', async () => {
    const project = fixture('precedence', 'project');
    const theirs = fixture('precedence', 'user');
    const configured = (precedence?: 'first' | 'last') => ({
      path: theirs,
      scope: 'project' as const,
      kind: 'configured' as const,
      ...(precedence ? { precedence } : {}),
    });
    const undecided = await discoverSkills([root(project), configured()], { limits: DEFAULT_LIMITS });
    expect(undecidedShadowing(undecided)).toEqual([
      `1 skill of ${theirs} (pdf) is hidden by same-named skills of a root before it; give that root ` +
        '"precedence": "first" in extraSkillRoots to use them instead, or "last" to keep it so.',
    ]);
    expect(undecided.diagnostics.find((d) => d.code === 'name-collision')?.hint).toMatch(/"precedence": "first"/);
    const decided = await discoverSkills([root(project), configured('last')], { limits: DEFAULT_LIMITS });
    expect(undecidedShadowing(decided)).toEqual([]);
    expect(decided.diagnostics.find((d) => d.code === 'name-collision')?.hint).toMatch(/^Rename one of them/);
  });

  it('reversing the roots reverses the winner', async () => {
    const result = await discoverSkills(
      [root(fixture('precedence', 'user'), 'user'), root(fixture('precedence', 'project'))],
      { limits: DEFAULT_LIMITS },
    );
    expect(result.skills.find((s) => s.name === 'pdf')!.description).toBe('User copy of the PDF skill.');
  });

  it('within one root the first folder in sorted path order wins', async () => {
    const base = fixture('same-root-collision');
    const result = await discoverSkills([root(base)], { limits: DEFAULT_LIMITS });
    expect(result.skills.map((s) => s.relDir)).toEqual(['a/pdf']);
    expect(result.collisions).toEqual([
      { name: 'pdf', winner: path.join(base, 'a', 'pdf'), losers: [path.join(base, 'b', 'pdf')] },
    ]);
    expect(codes(result)).toEqual(['name-collision']);
  });
});

describe('walking a root', () => {
  it('finds skills at any depth, stops at skill folders, and accepts skill.md', async () => {
    const result = await discoverSkills([root(fixture('nested'))], { limits: DEFAULT_LIMITS });
    expect(names(result)).toEqual(['deep', 'inner', 'lowercase-file', 'other-name', 'top-level', 'with-children']);
    expect(result.skills.map((s) => s.relDir)).toEqual([
      'group/sub/deep',
      'group/inner',
      'lowercase-file',
      'name-mismatch',
      'top-level',
      'with-children',
    ]);
    expect(result.skills.find((s) => s.name === 'lowercase-file')!.file.endsWith('skill.md')).toBe(true);
    expect(result.roots[0]!.skillCount).toBe(6);
  });

  it('reports diagnostics of skills that loaded and of skills that did not', async () => {
    const result = await discoverSkills([root(fixture('nested'))], { limits: DEFAULT_LIMITS });
    const noDescription = result.diagnostics.filter((d) => d.skillDir?.endsWith('no-description'));
    expect(noDescription.some((d) => d.severity === 'error')).toBe(true);
    const mismatch = result.diagnostics.filter((d) => d.skillDir?.endsWith('name-mismatch'));
    expect(mismatch.map((d) => d.severity)).toContain('warning');
    // A loaded skill's diagnostics appear once, not once from the result and again from the skill.
    expect(new Set(result.diagnostics).size).toBe(result.diagnostics.length);
  });

  it('a root that is itself a skill folder is that skill, with relDir ""', async () => {
    const base = fixture('root-is-skill');
    const result = await discoverSkills([root(base)], { limits: DEFAULT_LIMITS });
    expect(names(result)).toEqual(['root-is-skill']);
    expect(result.skills[0]!.relDir).toBe('');
    expect(result.skills[0]!.dir).toBe(base);
  });

  it('skips .git, node_modules and dot-folders', async () => {
    const base = scratch('skipped');
    writeSkill(path.join(base, 'visible'), 'visible');
    writeSkill(path.join(base, '.git', 'in-git'), 'in-git');
    writeSkill(path.join(base, 'node_modules', 'pkg', 'in-modules'), 'in-modules');
    writeSkill(path.join(base, 'group', 'node_modules', 'nested-modules'), 'nested-modules');
    writeSkill(path.join(base, '.hidden', 'in-dot'), 'in-dot');
    writeSkill(path.join(base, 'group', '.cache', 'in-cache'), 'in-cache');
    const result = await discoverSkills([root(base)], { limits: DEFAULT_LIMITS });
    expect(names(result)).toEqual(['visible']);
  });

  it('descends at most limits.maxDepth levels below the root', async () => {
    const base = scratch('depth');
    writeSkill(path.join(base, 'l1', 'l2', 'three'), 'three');
    writeSkill(path.join(base, 'l1', 'l2', 'l3', 'four'), 'four');
    const scan = (maxDepth: number) => discoverSkills([root(base)], { limits: { ...DEFAULT_LIMITS, maxDepth } });
    expect(names(await scan(2))).toEqual([]);
    expect(names(await scan(3))).toEqual(['three']);
    expect(names(await scan(4))).toEqual(['four', 'three']);
  });

  it('an empty root yields nothing and no diagnostics', async () => {
    const result = await discoverSkills([root(scratch('empty'))], { limits: DEFAULT_LIMITS });
    expect(result.skills).toEqual([]);
    expect(result.diagnostics).toEqual([]);
    expect(result.roots[0]).toMatchObject({ exists: true, skillCount: 0 });
  });
});

describe('symlinks', () => {
  posixOnly('follows symlinked skill folders and intermediate folders', async () => {
    const base = scratch('links');
    const outside = scratch('links-outside');
    writeSkill(path.join(outside, 'linked-skill'), 'linked-skill');
    writeSkill(path.join(outside, 'collection', 'in-collection'), 'in-collection');
    fs.symlinkSync(path.join(outside, 'linked-skill'), path.join(base, 'linked-skill'));
    fs.symlinkSync(path.join(outside, 'collection'), path.join(base, 'collection'));

    const result = await discoverSkills([root(base)], { limits: DEFAULT_LIMITS });
    expect(names(result)).toEqual(['in-collection', 'linked-skill']);
    const linked = result.skills.find((s) => s.name === 'linked-skill')!;
    expect(linked.relDir).toBe('linked-skill');
    expect(linked.dir).toBe(path.join(outside, 'linked-skill'));
    expect(result.diagnostics).toEqual([]);
  });

  posixOnly('the same real folder reached twice counts once, without a collision', async () => {
    const base = scratch('dedupe');
    const userRoot = scratch('dedupe-user');
    writeSkill(path.join(base, 'real-skill'), 'real-skill');
    fs.symlinkSync(path.join(base, 'real-skill'), path.join(base, 'z-alias'));
    fs.symlinkSync(path.join(base, 'real-skill'), path.join(userRoot, 'real-skill'));

    const result = await discoverSkills([root(base), root(userRoot, 'user')], { limits: DEFAULT_LIMITS });
    expect(names(result)).toEqual(['real-skill']);
    expect(result.skills[0]!.relDir).toBe('real-skill');
    expect(result.collisions).toEqual([]);
    expect(result.diagnostics).toEqual([]);
    expect(result.roots.map((r) => r.skillCount)).toEqual([1, 0]);
  });

  posixOnly('symlink loops, self-links and dangling links terminate quietly', async () => {
    const base = scratch('loops');
    writeSkill(path.join(base, 'a', 'b', 'found'), 'found');
    fs.symlinkSync(base, path.join(base, 'a', 'b', 'back-to-root'));
    fs.symlinkSync(path.join(base, 'a'), path.join(base, 'a', 'b', 'back-to-a'));
    fs.symlinkSync(path.join(base, 'self'), path.join(base, 'self'));
    fs.symlinkSync(path.join(base, 'missing-target'), path.join(base, 'dangling'));
    fs.symlinkSync(path.join(base, 'a', 'b', 'found', 'SKILL.md'), path.join(base, 'file-link'));

    const result = await discoverSkills([root(base)], { limits: { ...DEFAULT_LIMITS, maxDepth: 20 } });
    expect(names(result)).toEqual(['found']);
    expect(result.diagnostics).toEqual([]);
  });

  posixOnly('a symlinked SKILL.md makes its folder a skill', async () => {
    const base = scratch('file-link-skill');
    const outside = scratch('file-link-outside');
    writeSkill(path.join(outside, 'source'), 'via-link');
    fs.mkdirSync(path.join(base, 'via-link'));
    fs.symlinkSync(path.join(outside, 'source', 'SKILL.md'), path.join(base, 'via-link', 'SKILL.md'));
    const result = await discoverSkills([root(base)], { limits: DEFAULT_LIMITS });
    expect(names(result)).toEqual(['via-link']);
  });
});

describe('roots', () => {
  it('missing default roots are reported without a diagnostic; missing configured roots warn', async () => {
    const missing = path.join(tmp, 'does-not-exist');
    const result = await discoverSkills(
      [root(missing, 'project', 'agents'), root(path.join(missing, 'configured'), 'project', 'configured')],
      { limits: DEFAULT_LIMITS },
    );
    expect(result.roots).toEqual([
      { path: missing, scope: 'project', kind: 'agents', exists: false, skillCount: 0 },
      { path: path.join(missing, 'configured'), scope: 'project', kind: 'configured', exists: false, skillCount: 0 },
    ]);
    expect(result.diagnostics).toMatchObject([
      { severity: 'warning', code: 'root-missing', root: path.join(missing, 'configured') },
    ]);
  });

  it('a root that is a file is a warning and scanning goes on', async () => {
    const file = path.join(scratch('root-file'), 'not-a-folder');
    fs.writeFileSync(file, 'x');
    const result = await discoverSkills([root(file), root(fixture('same-root-collision'))], { limits: DEFAULT_LIMITS });
    expect(result.diagnostics[0]).toMatchObject({ severity: 'warning', code: 'root-not-directory', root: file });
    expect(result.roots[0]).toMatchObject({ exists: true, skillCount: 0 });
    expect(names(result)).toEqual(['pdf']);
  });

  const unprivileged = process.platform !== 'win32' && process.getuid?.() !== 0 ? it : it.skip;
  unprivileged('an unreadable root or subfolder is a warning', async () => {
    const base = scratch('unreadable');
    writeSkill(path.join(base, 'ok'), 'ok');
    fs.mkdirSync(path.join(base, 'locked'));
    fs.chmodSync(path.join(base, 'locked'), 0o000);
    try {
      const result = await discoverSkills([root(base)], { limits: DEFAULT_LIMITS });
      expect(names(result)).toEqual(['ok']);
      expect(codes(result)).toContain('folder-unreadable');
    } finally {
      fs.chmodSync(path.join(base, 'locked'), 0o755);
    }
  });

  it('no roots: an empty, well-formed result', async () => {
    const result = await discoverSkills([], { limits: DEFAULT_LIMITS });
    expect(result).toMatchObject({ skills: [], diagnostics: [], collisions: [], roots: [] });
    expect(result.scannedAt).toBeGreaterThan(0);
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });
});

describe('scan cache', () => {
  function touchEdit(file: string, text: string): void {
    fs.writeFileSync(file, text);
    // A distinct mtime even on filesystems with coarse timestamps.
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(file, later, later);
  }

  it('an unchanged rescan parses nothing; an edit re-parses only that skill', async () => {
    const base = scratch('cache');
    for (const n of ['alpha', 'beta', 'gamma']) writeSkill(path.join(base, n), n);
    const cache = createScanCache();
    const { load, calls } = countingLoader();
    const scan = () => discoverSkills([root(base)], { limits: DEFAULT_LIMITS, cache, load });

    const first = await scan();
    expect(calls.sort()).toEqual(['alpha', 'beta', 'gamma']);

    calls.length = 0;
    const second = await scan();
    expect(calls).toEqual([]);
    expect(second.skills).toEqual(first.skills);
    expect(second.skills[0]).toBe(first.skills[0]);

    touchEdit(path.join(base, 'beta', 'SKILL.md'), '---\nname: beta\ndescription: Edited description.\n---\n');
    const third = await scan();
    expect(calls).toEqual(['beta']);
    expect(third.skills.find((s) => s.name === 'beta')!.description).toBe('Edited description.');

    calls.length = 0;
    writeSkill(path.join(base, 'delta'), 'delta');
    fs.rmSync(path.join(base, 'alpha'), { recursive: true });
    const fourth = await scan();
    expect(calls).toEqual(['delta']);
    expect(names(fourth)).toEqual(['beta', 'delta', 'gamma']);
  });

  it('broken skills are cached too, and a fix is picked up', async () => {
    const base = scratch('cache-broken');
    fs.mkdirSync(path.join(base, 'broken'));
    fs.writeFileSync(path.join(base, 'broken', 'SKILL.md'), '---\nname: broken\n---\n');
    const cache = createScanCache();
    const { load, calls } = countingLoader();
    const scan = () => discoverSkills([root(base)], { limits: DEFAULT_LIMITS, cache, load });

    expect(names(await scan())).toEqual([]);
    const again = await scan();
    expect(calls).toHaveLength(1);
    expect(again.diagnostics.some((d) => d.severity === 'error')).toBe(true);

    touchEdit(path.join(base, 'broken', 'SKILL.md'), '---\nname: broken\ndescription: Fixed.\n---\n');
    expect(names(await scan())).toEqual(['broken']);
    expect(calls).toHaveLength(2);
  });

  it('different limits or a different root invalidate cached parses', async () => {
    const base = scratch('cache-limits');
    writeSkill(path.join(base, 'one'), 'one');
    const cache = createScanCache();
    const { load, calls } = countingLoader();
    await discoverSkills([root(base)], { limits: DEFAULT_LIMITS, cache, load });
    await discoverSkills([root(base)], { limits: { ...DEFAULT_LIMITS, maxSkillFileBytes: 10 }, cache, load });
    expect(calls).toHaveLength(2);
    await discoverSkills([root(base, 'user')], { limits: { ...DEFAULT_LIMITS, maxSkillFileBytes: 10 }, cache, load });
    expect(calls).toHaveLength(3);
  });
});
