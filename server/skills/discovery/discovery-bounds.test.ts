/**
 * What keeps a scan bounded: links to a folder containing the root are not followed, and each root has a visit cap.
 * Built in a temp dir (git cannot hold symlinks to `/`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../config';
import type { SkillRoot } from '../types';
import { createScanCache, discoverSkills } from './discovery';

const posixOnly = process.platform === 'win32' ? it.skip : it;

function root(p: string): SkillRoot {
  return { path: p, scope: 'project', kind: 'configured' };
}

function writeSkill(dir: string, name: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), `---\nname: ${name}\ndescription: The ${name} skill.\n---\nBody.\n`);
}

let tmp: string;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-bounds-')));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function scratch(name: string): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

describe('links to a folder that contains the root', () => {
  posixOnly('a link to / is not followed and is reported', async () => {
    const base = scratch('link-to-filesystem-root');
    writeSkill(path.join(base, 'own'), 'own');
    fs.symlinkSync('/', path.join(base, 'everything'));

    const started = performance.now();
    const result = await discoverSkills([root(base)], { limits: DEFAULT_LIMITS });
    expect(result.skills.map((s) => s.name)).toEqual(['own']);
    expect(result.diagnostics).toMatchObject([
      { severity: 'warning', code: 'link-to-ancestor', root: base, message: expect.stringContaining('everything') },
    ]);
    // Following it walked the whole disk (22.5 s measured); not following it is a few milliseconds.
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  posixOnly('a link to the root’s parent (which holds the root) is not followed', async () => {
    const parent = scratch('link-to-parent');
    const base = path.join(parent, 'skills');
    writeSkill(path.join(base, 'own'), 'own');
    writeSkill(path.join(parent, 'beside', 'neighbour'), 'neighbour');
    fs.symlinkSync(parent, path.join(base, 'up'));

    const result = await discoverSkills([root(base)], { limits: DEFAULT_LIMITS });
    expect(result.skills.map((s) => s.name)).toEqual(['own']);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['link-to-ancestor']);
  });

  posixOnly('a link to a sibling folder (not above the root) is still followed', async () => {
    const parent = scratch('link-to-sibling');
    const base = path.join(parent, 'skills');
    fs.mkdirSync(base);
    writeSkill(path.join(parent, 'shared', 'neighbour'), 'neighbour');
    fs.symlinkSync(path.join(parent, 'shared'), path.join(base, 'shared'));

    const result = await discoverSkills([root(base)], { limits: DEFAULT_LIMITS });
    expect(result.skills.map((s) => s.name)).toEqual(['neighbour']);
    expect(result.diagnostics).toEqual([]);
  });
});

describe('visit cap', () => {
  function collection(name: string, count: number, prefix = 's'): string {
    const base = scratch(name);
    for (let i = 0; i < count; i++) {
      const n = `${prefix}${String(i).padStart(2, '0')}`;
      writeSkill(path.join(base, 'group', n), n);
    }
    return base;
  }

  it('stops a root after limits.maxFoldersPerRoot folders, with a diagnostic', async () => {
    const base = collection('visit-cap', 20);
    // The root, `group`, then 8 skill folders.
    const result = await discoverSkills([root(base)], { limits: { ...DEFAULT_LIMITS, maxFoldersPerRoot: 10 } });
    expect(result.skills).toHaveLength(8);
    expect(result.diagnostics).toMatchObject([
      { severity: 'warning', code: 'visit-cap', root: base, message: expect.stringContaining('10 folders') },
    ]);
  });

  it('a root under the cap loads everything and says nothing', async () => {
    const base = collection('under-cap', 20);
    const result = await discoverSkills([root(base)], { limits: { ...DEFAULT_LIMITS, maxFoldersPerRoot: 22 } });
    expect(result.skills).toHaveLength(20);
    expect(result.diagnostics).toEqual([]);
  });

  it('counts per root: a capped root does not starve the next one', async () => {
    const big = collection('cap-big', 20);
    const small = collection('cap-small', 3, 't');
    const result = await discoverSkills([root(big), root(small)], {
      limits: { ...DEFAULT_LIMITS, maxFoldersPerRoot: 10 },
    });
    expect(result.roots.map((r) => r.skillCount)).toEqual([8, 3]);
    expect(result.diagnostics.map((d) => d.code)).toEqual(['visit-cap']);
  });

  it('an incremental rescan counts reused folders towards the cap', async () => {
    const base = collection('cap-incremental', 8);
    const cache = createScanCache();
    const limits = { ...DEFAULT_LIMITS, maxFoldersPerRoot: 10 };
    const first = await discoverSkills([root(base)], { limits, cache });
    expect(first.diagnostics).toEqual([]);
    writeSkill(path.join(base, 'group', 'z1'), 'z1');
    writeSkill(path.join(base, 'group', 'z2'), 'z2');
    const second = await discoverSkills([root(base)], { limits, cache, changed: [path.join(base, 'group', 'z1')] });
    expect(second.skills).toHaveLength(8);
    expect(second.diagnostics.map((d) => d.code)).toEqual(['visit-cap']);
  });
});
