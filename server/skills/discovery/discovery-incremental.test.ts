/**
 * Incremental rescans (`changed`, what the watcher passes): folders no change touches are reused without being
 * read, and the result is the same as a full scan's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../config';
import { loadSkill } from '../load/skill-file';
import type { DiscoveryResult, SkillRoot } from '../types';
import { createScanCache, discoverSkills, type SkillLoader, scannedFolders } from './discovery';

let tmp: string;
let tick = 0;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-incremental-')));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function writeSkill(dir: string, name: string, description = `The ${name} skill.`): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'SKILL.md');
  fs.writeFileSync(file, `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`);
  const when = new Date(Date.now() + ++tick * 1000);
  fs.utimesSync(file, when, when);
  return file;
}

function root(p: string): SkillRoot {
  return { path: p, scope: 'project', kind: 'configured' };
}

function counting(): { load: SkillLoader; calls: string[] } {
  const calls: string[] = [];
  const load: SkillLoader = (dir, options) => {
    calls.push(options.relDir);
    return loadSkill(dir, options);
  };
  return { calls, load };
}

function names(r: DiscoveryResult): string[] {
  return r.skills.map((s) => s.name);
}

/** What a fresh full scan says, minus timings. */
async function fresh(roots: SkillRoot[]) {
  const { scannedAt: _a, durationMs: _b, ...rest } = await discoverSkills(roots, { limits: DEFAULT_LIMITS });
  return rest;
}

describe('discoverSkills with changed paths', () => {
  it('no change: nothing is read, the skills are the same objects', async () => {
    const base = path.join(tmp, 'none');
    for (const n of ['a', 'b', 'c']) writeSkill(path.join(base, n), n);
    const cache = createScanCache();
    const { load, calls } = counting();
    const first = await discoverSkills([root(base)], { limits: DEFAULT_LIMITS, cache, load });
    calls.length = 0;
    const again = await discoverSkills([root(base)], { limits: DEFAULT_LIMITS, cache, load, changed: [] });
    expect(calls).toEqual([]);
    expect(again.skills).toEqual(first.skills);
    again.skills.forEach((s, i) => {
      expect(s).toBe(first.skills[i]);
    });
  });

  it('an edit, an addition and a removal: only those are read, and the result equals a full scan', async () => {
    const base = path.join(tmp, 'mixed');
    for (const n of ['a', 'b', 'c']) writeSkill(path.join(base, n), n);
    writeSkill(path.join(base, 'group', 'd'), 'd');
    const cache = createScanCache();
    const { load, calls } = counting();
    await discoverSkills([root(base)], { limits: DEFAULT_LIMITS, cache, load });
    calls.length = 0;

    const edited = writeSkill(path.join(base, 'b'), 'b', 'Edited.');
    writeSkill(path.join(base, 'group', 'e'), 'e');
    fs.rmSync(path.join(base, 'c'), { recursive: true });
    const changed = [edited, path.join(base, 'group', 'e'), path.join(base, 'c')];
    const result = await discoverSkills([root(base)], { limits: DEFAULT_LIMITS, cache, load, changed });
    expect(calls.sort()).toEqual(['b', 'group/e']);
    expect(names(result)).toEqual(['a', 'b', 'd', 'e']);
    const { scannedAt: _a, durationMs: _b, ...rest } = result;
    expect(rest).toEqual(await fresh([root(base)]));
  });

  it('a folder that becomes a skill, and a skill folder that stops being one', async () => {
    const base = path.join(tmp, 'flip');
    writeSkill(path.join(base, 'outer', 'inner'), 'inner');
    writeSkill(path.join(base, 'plain'), 'plain');
    const cache = createScanCache();
    await discoverSkills([root(base)], { limits: DEFAULT_LIMITS, cache });

    const outerFile = writeSkill(path.join(base, 'outer'), 'outer');
    const plainFile = path.join(base, 'plain', 'SKILL.md');
    fs.rmSync(plainFile);
    const result = await discoverSkills([root(base)], {
      limits: DEFAULT_LIMITS,
      cache,
      changed: [outerFile, plainFile],
    });
    // A skill folder's subfolders are resources: `inner` is no longer a skill of its own.
    expect(names(result)).toEqual(['outer']);
    expect(scannedFolders(cache)).toEqual({
      folders: [base, path.join(base, 'plain')],
      skillFolders: [path.join(base, 'outer')],
    });
  });

  it('a root that appears is walked; without a previous walk, changed means a full scan', async () => {
    const late = path.join(tmp, 'appears', 'skills');
    const cache = createScanCache();
    const { load, calls } = counting();
    expect(names(await discoverSkills([root(late)], { limits: DEFAULT_LIMITS, cache, load, changed: ['/x'] }))).toEqual(
      [],
    );
    writeSkill(path.join(late, 'x'), 'x');
    const result = await discoverSkills([root(late)], {
      limits: DEFAULT_LIMITS,
      cache,
      load,
      changed: [path.dirname(late)],
    });
    expect(names(result)).toEqual(['x']);
    expect(calls).toEqual(['x']);
  });

  it.skipIf(process.platform === 'win32')('full rescans reuse what is unchanged and still see every edit', async () => {
    const base = path.join(tmp, 'full');
    writeSkill(path.join(base, 'a'), 'a');
    writeSkill(path.join(base, 'deep', 'x', 'y', 'b'), 'b');
    fs.symlinkSync(path.join(base, 'missing'), path.join(base, 'dangling'));
    const limits = { ...DEFAULT_LIMITS, maxDepth: 4 };
    const cache = createScanCache();
    const first = await discoverSkills([root(base)], { limits, cache });
    expect(names(first)).toEqual(['a', 'b']);
    const same = await discoverSkills([root(base)], { limits, cache });
    expect(same.skills).toBe(first.skills);

    writeSkill(path.join(base, 'deep', 'x', 'y', 'b'), 'b', 'Edited deep down.');
    writeSkill(path.join(base, 'deep', 'x', 'y', 'z', 'too-deep'), 'too-deep');
    const edited = await discoverSkills([root(base)], { limits, cache });
    expect(edited.skills.find((s) => s.name === 'b')?.description).toBe('Edited deep down.');
    expect(names(edited)).toEqual(['a', 'b']);
    const { scannedAt: _a, durationMs: _b, ...rest } = edited;
    expect(rest).toEqual(
      await (async () => {
        const { scannedAt: _c, durationMs: _d, ...full } = await discoverSkills([root(base)], { limits });
        return full;
      })(),
    );
  });

  it.skipIf(process.platform === 'win32')('skills behind symlinks are looked at again on every change', async () => {
    const base = path.join(tmp, 'linked');
    const outside = path.join(tmp, 'linked-outside');
    const file = writeSkill(path.join(outside, 'target'), 'target');
    writeSkill(path.join(base, 'local'), 'local');
    fs.symlinkSync(path.join(outside, 'target'), path.join(base, 'target'));
    const cache = createScanCache();
    await discoverSkills([root(base)], { limits: DEFAULT_LIMITS, cache });

    writeSkill(path.join(outside, 'target'), 'target', 'Edited behind the link.');
    // The change is reported under the link's target, which no walked path contains.
    const result = await discoverSkills([root(base)], { limits: DEFAULT_LIMITS, cache, changed: [file] });
    expect(result.skills.find((s) => s.name === 'target')?.description).toBe('Edited behind the link.');
  });
});
