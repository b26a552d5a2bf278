import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../../server/limits';
import { discoverSkills, type SkillLoader } from '../../../server/skills/discovery/discovery';
import type { CacheEntry } from '../../../server/skills/discovery/scan-cache';
import { loadSkill } from '../../../server/skills/load/skill-file';
import type { SkillRoot } from '../../../server/skills/types';
import { openScanCache, packEntry, unpackEntry } from './scan-cache-file';

let tmp: string;
let rootDir: string;
let cacheDir: string;
let roots: SkillRoot[];

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'scan-cache-file-'));
  rootDir = path.join(tmp, 'skills');
  cacheDir = path.join(tmp, 'cache');
  roots = [{ path: rootDir, scope: 'project', kind: 'configured' }];
  for (const name of ['alpha', 'beta', 'gamma']) writeSkill(name, `The ${name} skill.`);
});

afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function writeSkill(name: string, description: string): string {
  const file = path.join(rootDir, name, 'SKILL.md');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `---\nname: ${name}\ndescription: ${description}\n---\nBody of ${name}.\n`);
  return file;
}

/** One "process": opens the file, scans with it, saves it, as the CLI does. Returns the folders it parsed. */
async function run() {
  const parsed: string[] = [];
  const load: SkillLoader = (dir, options) => {
    parsed.push(path.basename(dir));
    return loadSkill(dir, options);
  };
  const persisted = openScanCache(cacheDir, roots, DEFAULT_LIMITS);
  const result = await discoverSkills(roots, { limits: DEFAULT_LIMITS, cache: persisted.cache, load });
  persisted.save();
  return { parsed: parsed.sort(), result, persisted };
}

describe('scan cache on disk', () => {
  it('lets the next process reuse every unchanged parse, with the same result', async () => {
    const first = await run();
    expect(first.parsed).toEqual(['alpha', 'beta', 'gamma']);
    const second = await run();
    expect(second.parsed).toEqual([]);
    expect(second.result.skills).toEqual(first.result.skills);
  });

  it('parses an edited skill file again and keeps the rest', async () => {
    await run();
    writeSkill('beta', 'Edited: a longer description of beta.');
    const next = await run();
    expect(next.parsed).toEqual(['beta']);
    expect(next.result.skills.find((s) => s.name === 'beta')?.description).toBe(
      'Edited: a longer description of beta.',
    );
  });

  it('parses a file replaced by one of the same size and mtime (another inode) again', async () => {
    const file = path.join(rootDir, 'alpha', 'SKILL.md');
    // Whole seconds: utimes cannot reproduce an arbitrary sub-millisecond mtime exactly.
    fs.utimesSync(file, 1_700_000_000, 1_700_000_000);
    await run();
    const before = fs.statSync(file);
    const replacement = `${file}.new`;
    fs.writeFileSync(replacement, fs.readFileSync(file, 'utf8').replace('alpha skill', 'ALPHA skill'));
    fs.utimesSync(replacement, 1_700_000_000, 1_700_000_000);
    fs.renameSync(replacement, file);
    expect(fs.statSync(file)).toMatchObject({ size: before.size, mtimeMs: before.mtimeMs });
    expect(fs.statSync(file).ino).not.toBe(before.ino);
    const next = await run();
    expect(next.parsed).toEqual(['alpha']);
    expect(next.result.skills.find((s) => s.name === 'alpha')?.description).toBe('The ALPHA skill.');
  });

  it('drops removed skills and finds new ones', async () => {
    await run();
    fs.rmSync(path.join(rootDir, 'gamma'), { recursive: true });
    writeSkill('delta', 'The delta skill.');
    const next = await run();
    expect(next.parsed).toEqual(['delta']);
    expect(next.result.skills.map((s) => s.name)).toEqual(['alpha', 'beta', 'delta']);
  });

  it('treats a damaged file as an empty cache', async () => {
    await run();
    const [file] = fs.readdirSync(cacheDir);
    fs.writeFileSync(path.join(cacheDir, file!), '{"format":1,"entries":[[');
    const next = await run();
    expect(next.parsed).toEqual(['alpha', 'beta', 'gamma']);
    expect(next.result.skills).toHaveLength(3);
  });

  it('treats a damaged entry line as an empty cache', async () => {
    await run();
    const [file] = fs.readdirSync(cacheDir);
    const lines = fs.readFileSync(path.join(cacheDir, file!), 'utf8').split('\n');
    lines[2] = lines[2]!.slice(0, 10);
    fs.writeFileSync(path.join(cacheDir, file!), lines.join('\n'));
    expect((await run()).parsed).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('writes the unchanged entries back as the bytes it read, and only the edited one anew', async () => {
    await run();
    const [name] = fs.readdirSync(cacheDir);
    const file = path.join(cacheDir, name!);
    // Each entry's line, doctored so a fresh serialisation would differ (JSON that parses the same: a leading space).
    const spaced = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .map((line, i) => (i === 0 || line === '' ? line : ` ${line}`));
    fs.writeFileSync(file, spaced.join('\n'));
    writeSkill('beta', 'Edited: a longer description of beta.');
    expect((await run()).parsed).toEqual(['beta']);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    expect(lines).toHaveLength(5); // header, three entries, the final newline
    const byName = (n: string) => lines.find((l) => l.includes(`${path.sep}${n}\\u0000`))!;
    expect(byName('alpha')).toBe(spaced.find((l) => l.includes(`${path.sep}alpha\\u0000`)));
    expect(byName('gamma')).toBe(spaced.find((l) => l.includes(`${path.sep}gamma\\u0000`)));
    expect(byName('alpha')).toMatch(/^ \[/);
    expect(byName('beta')).toMatch(/^\[/);
    expect(byName('beta')).toContain('Edited: a longer description of beta.');
    // And the next process reads all three back without parsing any.
    expect((await run()).parsed).toEqual([]);
  });

  it('keys the file by limits: other limits parse afresh', async () => {
    await run();
    const other = { ...DEFAULT_LIMITS, maxFrontmatterBytes: 1024 };
    const persisted = openScanCache(cacheDir, roots, other);
    expect(persisted.cache.entries.size).toBe(0);
  });

  it('keeps a count between processes for the same input only', async () => {
    let counted = 0;
    const count = async () => ++counted * 100;
    const first = await run();
    expect(await first.persisted.tokens('names and descriptions', count)).toBe(100);
    first.persisted.save();
    const second = await run();
    expect(await second.persisted.tokens('names and descriptions', count)).toBe(100);
    expect(await second.persisted.tokens('other skills', count)).toBe(200);
    expect(counted).toBe(2);
  });

  it('stores an entry compactly and reads it back the same, key order included', () => {
    const skill = {
      name: 'alpha',
      description: 'The alpha skill.',
      dir: '/real/alpha',
      file: '/skills/alpha/SKILL.md',
      root: '/skills',
      relDir: 'alpha',
      scope: 'project' as const,
      frontmatter: { description: 'The alpha skill.', name: ' alpha ', license: 'MIT' },
      size: 10,
      mtimeMs: 1.5,
      diagnostics: [],
    };
    const entry: CacheEntry = { file: skill.file, size: 10, mtimeMs: 1.5, ino: 7, skill, diagnostics: [] };
    // `dir` differs from the folder in the key (a link) and the frontmatter's name from the skill's: kept as they are.
    const key = '/skills/alpha\0/skills\0project\0alpha';
    const packed = packEntry(key, entry);
    expect(JSON.stringify(packed).length).toBeLessThan(JSON.stringify(entry).length);
    const [back, restored] = unpackEntry(JSON.parse(JSON.stringify(packed)));
    expect(back).toBe(key);
    expect(restored).toEqual(entry);
    expect(JSON.stringify(restored)).toBe(JSON.stringify(entry));
  });
});
