/**
 * Copying a skill folder into memory: what gets in, what is left out and why. Links, FIFOs and oversized files
 * are made in a temp dir (git cannot hold the first two; the last would bloat the repo).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSkillScripts, type SkillSnapshot, type SnapshotEntry, skillHasScripts, snapshotSkill } from './snapshot';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const posixOnly = process.platform === 'win32' ? it.skip : it;

let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-snapshot-'));
  fs.mkdirSync(path.join(tmp, 'outside'));
  fs.writeFileSync(path.join(tmp, 'outside', 'secret.sh'), 'echo secret\n');
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function entry(snapshot: SkillSnapshot, path: string): SnapshotEntry | undefined {
  return snapshot.entries.find((e) => e.path === path);
}

function text(snapshot: SkillSnapshot, path: string): string | undefined {
  const found = entry(snapshot, path);
  return found?.type === 'file' ? Buffer.from(found.data).toString('utf8') : undefined;
}

function makeSkill(name: string, files: Record<string, string | Buffer>): string {
  const dir = path.join(tmp, name);
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  }
  return dir;
}

describe('snapshotSkill', () => {
  it('copies files byte for byte, folders included', async () => {
    const binary = Buffer.from([0, 1, 2, 255, 254, 0x80]);
    const dir = makeSkill('bytes', { 'SKILL.md': '---\nname: bytes\n---\n', 'assets/blob.bin': binary });
    const result = await snapshotSkill(dir);
    if (!result.ok) throw new Error(result.error);
    const { snapshot } = result;
    expect(snapshot.files).toBe(2);
    expect(snapshot.bytes).toBe(binary.length + 20);
    expect(snapshot.omitted).toEqual([]);
    expect(snapshot.entries.map((e) => `${e.type} ${e.path}`)).toEqual([
      'file /SKILL.md',
      'dir /assets',
      'file /assets/blob.bin',
    ]);
    const blob = entry(snapshot, '/assets/blob.bin');
    expect(blob?.type === 'file' && Buffer.from(blob.data)).toEqual(binary);
    expect(text(snapshot, '/SKILL.md')).toBe('---\nname: bytes\n---\n');
  });

  it('leaves out files over the per-file cap and past the total cap', async () => {
    const dir = makeSkill('caps', {
      'a.txt': 'x'.repeat(400),
      'b.txt': 'y'.repeat(400),
      'c.txt': 'z'.repeat(100),
      'huge.bin': Buffer.alloc(2_000),
    });
    const result = await snapshotSkill(dir, { maxFileBytes: 1_000, maxTotalBytes: 850 });
    if (!result.ok) throw new Error(result.error);
    expect(result.snapshot.omitted).toEqual([
      // Sorted walk: a (400) + b (400) fit in 850, c (100) does not.
      { path: 'c.txt', reason: 'total-size-cap' },
      { path: 'huge.bin', reason: 'too-large' },
    ]);
    expect(result.snapshot.bytes).toBe(800);
    expect(entry(result.snapshot, '/huge.bin')).toBeUndefined();
    expect(text(result.snapshot, '/b.txt')).toBe('y'.repeat(400));
  });

  it('stops at the entry and depth caps', async () => {
    const dir = makeSkill('many', { 'a/b/c/deep.txt': 'deep', 'x1.txt': '1', 'x2.txt': '2', 'x3.txt': '3' });
    const deep = await snapshotSkill(dir, { maxDepth: 1 });
    if (!deep.ok) throw new Error(deep.error);
    expect(deep.snapshot.omitted).toEqual([{ path: 'a/b', reason: 'too-deep' }]);
    const many = await snapshotSkill(dir, { maxEntries: 3 });
    if (!many.ok) throw new Error(many.error);
    // Depth-first: a, a/b, a/b/c are the first three entries.
    expect(many.snapshot.omitted).toEqual([{ path: 'a/b/c/deep.txt', reason: 'too-many-entries' }]);
  });

  posixOnly('recreates inside links as relative links and leaves out everything else', async () => {
    const dir = makeSkill('links', { 'SKILL.md': 'skill', 'references/guide.md': 'guide' });
    fs.symlinkSync('../references/guide.md', path.join(dir, 'references', 'again.md'));
    fs.symlinkSync(path.join(dir, 'references'), path.join(dir, 'refs-absolute'));
    fs.symlinkSync('../outside/secret.sh', path.join(dir, 'out.sh'));
    fs.symlinkSync('/dev/zero', path.join(dir, 'zero'));
    fs.symlinkSync('missing.md', path.join(dir, 'dangling.md'));
    execFileSync('mkfifo', [path.join(dir, 'pipe')]);

    const result = await snapshotSkill(dir);
    if (!result.ok) throw new Error(result.error);
    const { snapshot } = result;
    expect(entry(snapshot, '/references/again.md')).toEqual({
      type: 'symlink',
      path: '/references/again.md',
      target: 'guide.md',
    });
    expect(entry(snapshot, '/refs-absolute')).toEqual({
      type: 'symlink',
      path: '/refs-absolute',
      target: 'references',
    });
    expect(text(snapshot, '/references/guide.md')).toBe('guide');
    expect(result.snapshot.omitted).toEqual([
      { path: 'dangling.md', reason: 'symlink-broken' },
      { path: 'out.sh', reason: 'symlink-outside' },
      { path: 'pipe', reason: 'special-file' },
      { path: 'zero', reason: 'symlink-outside' },
    ]);
    expect(entry(snapshot, '/out.sh')).toBeUndefined();
    expect(entry(snapshot, '/pipe')).toBeUndefined();
  });

  it('reports a missing folder without naming its path', async () => {
    const result = await snapshotSkill(path.join(tmp, 'nope'));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).not.toContain(tmp);
  });
});

describe('skillHasScripts / listSkillScripts', () => {
  it('finds .sh and .py files anywhere in the skill', async () => {
    expect(await skillHasScripts(path.join(FIXTURES, 'validation-skill'))).toBe(true);
    expect(await listSkillScripts(path.join(FIXTURES, 'validation-skill'))).toEqual(['scripts/echo.sh']);
    const scripts = await listSkillScripts(path.join(FIXTURES, 'probe-skill'));
    expect(scripts).toContain('scripts/hello.py');
    expect(scripts).toContain('scripts/args.sh');
    expect(scripts).not.toContain('scripts/notes.txt');
  });

  it('says no for a skill with references only, or no folder at all', async () => {
    expect(await skillHasScripts(path.join(FIXTURES, 'no-scripts'))).toBe(false);
    expect(await skillHasScripts(path.join(tmp, 'nope'))).toBe(false);
  });

  posixOnly('does not count a link to a script outside the skill', async () => {
    const dir = makeSkill('link-only', { 'SKILL.md': 'skill' });
    fs.mkdirSync(path.join(dir, 'scripts'));
    fs.symlinkSync('../../outside/secret.sh', path.join(dir, 'scripts', 'run.sh'));
    expect(await skillHasScripts(dir)).toBe(false);
  });
});
