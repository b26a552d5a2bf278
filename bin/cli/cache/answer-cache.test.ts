/**
 * Kept answers of `list` and `match` (bin/cli/cache/answer-cache.ts) are reused only while nothing they depend on changed.
 * Each case's skill folder is named after it. The commands run in-process from the sources, each call a "fresh
 * process" as far as the caches go (they are read from disk every time).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Io } from '../command';
import { type ListJson, listCommand } from '../list';
import { matchCommand } from '../match';
import { openKeptAnswer } from './answer-cache';

let tmp: string;
let root: string;
let cacheDir: string;
let appDir: string;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skills-answers-')));
  root = path.join(tmp, 'skills');
  cacheDir = path.join(tmp, 'cache');
  appDir = path.join(tmp, 'app');
  fs.mkdirSync(appDir);
  vi.stubEnv('SKILLCHAT_CACHE_DIR', cacheDir);
  vi.stubEnv('SKILLCHAT_APP_DIR', appDir);
  vi.stubEnv('SKILLCHAT_SCAN_CACHE', undefined);
  vi.stubEnv('SKILLCHAT_CONFIG', undefined);
  vi.stubEnv('SKILLCHAT_SKILL_ROOTS', undefined);
});

afterEach(() => {
  vi.unstubAllEnvs();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function writeSkill(name: string, description: string): string {
  const file = path.join(root, name, 'SKILL.md');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`);
  return file;
}

async function run(command: typeof listCommand, args: string[]): Promise<string> {
  let out = '';
  const io: Io = {
    out: (text) => {
      out += text;
    },
    err: () => {},
    outBytes: (bytes) => {
      out += Buffer.from(bytes).toString();
      return true;
    },
  };
  const code = await command.run([...args, '--root', root], io);
  // `match` exits 1 when nothing matched (as grep does), with nothing on stdout.
  expect(code).toBe(command === matchCommand && out === '' ? 1 : 0);
  return out;
}

const listJson = async () => JSON.parse(await run(listCommand, ['--json'])) as ListJson;
const descriptions = async () => Object.fromEntries((await listJson()).skills.map((s) => [s.name, s.description]));
const match = (text: string) => run(matchCommand, [text]);

/** The kept answers' files (not the scan cache's). */
const answers = () => fs.readdirSync(cacheDir).filter((f) => f.startsWith('answer-'));

describe('kept answers of list and match', () => {
  it('are reused when nothing changed: a doctored answer is what the next run prints', async () => {
    writeSkill('unchanged-reused', 'Reads the unchanged files.');
    const first = await run(listCommand, []);
    expect(first).toContain('unchanged-reused');
    const [file] = answers();
    const kept = fs.readFileSync(path.join(cacheDir, file!), 'utf8');
    fs.writeFileSync(path.join(cacheDir, file!), kept.replace('unchanged-reused', 'doctored-answer'));
    expect(await run(listCommand, [])).toContain('doctored-answer');
  });

  it('print list --json with this run’s scan time, the rest as before', async () => {
    writeSkill('json-times', 'Prints the scan time afresh.');
    const first = await listJson();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await listJson();
    expect(second.scannedAt).toBeGreaterThan(first.scannedAt);
    expect({ ...second, scannedAt: 0, durationMs: 0 }).toEqual({ ...first, scannedAt: 0, durationMs: 0 });
  });

  it('read an edited SKILL.md again (mtime and size changed)', async () => {
    const file = writeSkill('edited-description', 'Old words.');
    expect(await descriptions()).toEqual({ 'edited-description': 'Old words.' });
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('Old words.', 'New, longer words.'));
    expect(await descriptions()).toEqual({ 'edited-description': 'New, longer words.' });
  });

  it('read a SKILL.md edited within the same size again (mtime changed)', async () => {
    const file = writeSkill('edited-same-size', 'Version one.');
    fs.utimesSync(file, 1_700_000_000, 1_700_000_000);
    expect(await descriptions()).toEqual({ 'edited-same-size': 'Version one.' });
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('one', 'two'));
    fs.utimesSync(file, 1_700_000_001, 1_700_000_001);
    expect(await descriptions()).toEqual({ 'edited-same-size': 'Version two.' });
  });

  it('read a SKILL.md replaced by one of the same size and mtime again (inode changed)', async () => {
    const file = writeSkill('replaced-same-size-and-mtime', 'Version one.');
    fs.utimesSync(file, 1_700_000_000, 1_700_000_000);
    expect(await descriptions()).toEqual({ 'replaced-same-size-and-mtime': 'Version one.' });
    const before = fs.statSync(file);
    const replacement = `${file}.new`;
    fs.writeFileSync(replacement, fs.readFileSync(file, 'utf8').replace('one', 'two'));
    fs.utimesSync(replacement, 1_700_000_000, 1_700_000_000);
    fs.renameSync(replacement, file);
    expect(fs.statSync(file)).toMatchObject({ size: before.size, mtimeMs: before.mtimeMs });
    expect(await descriptions()).toEqual({ 'replaced-same-size-and-mtime': 'Version two.' });
  });

  it('see a removed skill go and an added one come', async () => {
    writeSkill('removed-skill', 'Goes away.');
    writeSkill('kept-skill', 'Stays.');
    expect(Object.keys(await descriptions())).toEqual(['kept-skill', 'removed-skill']);
    fs.rmSync(path.join(root, 'removed-skill'), { recursive: true });
    writeSkill('added-skill', 'Comes in.');
    expect(Object.keys(await descriptions())).toEqual(['added-skill', 'kept-skill']);
  });

  it('see a SKILL.md that became skill.md (another file) as such', async () => {
    const file = writeSkill('renamed-skill-file', 'Upper case file.');
    expect((await listJson()).skills[0]?.file).toBe(file);
    const lower = path.join(path.dirname(file), 'skill.md');
    fs.renameSync(file, lower);
    expect((await listJson()).skills[0]?.file).toBe(lower);
  });

  it('follow a config change (a mode set in skillchat.config.json)', async () => {
    writeSkill('config-mode-changed', 'Mode comes from the config.');
    expect((await listJson()).skills[0]?.access.effectiveMode).toBe('auto');
    fs.writeFileSync(
      path.join(appDir, 'skillchat.config.json'),
      JSON.stringify({ skills: { modes: { 'config-mode-changed': 'manual' } } }),
    );
    expect((await listJson()).skills[0]?.access.effectiveMode).toBe('manual');
  });

  it('include the modes set on /admin (the app database), and follow their changes', async () => {
    writeSkill('admin-mode-set', 'Mode comes from /admin.');
    expect((await listJson()).skills[0]?.access.effectiveMode).toBe('auto');
    // As the app stores them (server/db/schema.ts skill_modes), at the config's default database path.
    fs.mkdirSync(path.join(appDir, 'data'));
    const db = new Database(path.join(appDir, 'data', 'skillchat.db'));
    db.exec('CREATE TABLE skill_modes (skill_name TEXT PRIMARY KEY, mode TEXT NOT NULL, updated_at INTEGER NOT NULL)');
    db.prepare('INSERT INTO skill_modes VALUES (?, ?, ?)').run('admin-mode-set', 'off', Date.now());
    try {
      const listed = await listJson();
      expect(listed.skills[0]?.access.effectiveMode).toBe('off');
      expect(listed.modeOverrides).toEqual({ 'admin-mode-set': 'off' });
      expect(await run(listCommand, [])).toContain('1 mode set on /admin');
      db.prepare('UPDATE skill_modes SET mode = ?').run('manual');
      expect((await listJson()).skills[0]?.access.effectiveMode).toBe('manual');
    } finally {
      db.close();
    }
  });

  it('keep list and list --json apart', async () => {
    writeSkill('format-kept-apart', 'Two formats.');
    await run(listCommand, []);
    expect((await listJson()).skills.map((s) => s.name)).toEqual(['format-kept-apart']);
    expect(await run(listCommand, [])).toContain('Skills (1)');
  });

  it('match an edited description by its new words', async () => {
    const file = writeSkill('match-edited-description', 'Converts spreadsheets into charts.');
    writeSkill('other-skill', 'Writes release notes from commits.');
    expect(await match('turn this spreadsheet into a chart')).toBe('match-edited-description\n');
    expect(await match('turn this spreadsheet into a chart')).toBe('match-edited-description\n');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('spreadsheets into charts', 'audio into text'));
    expect(await match('turn this spreadsheet into a chart')).toBe('');
    expect(await match('transcribe this audio into text')).toBe('match-edited-description\n');
  });

  it('are not kept with SKILLCHAT_SCAN_CACHE=off', async () => {
    vi.stubEnv('SKILLCHAT_SCAN_CACHE', 'off');
    writeSkill('cache-off', 'Nothing kept.');
    await run(listCommand, []);
    await match('anything');
    expect(fs.existsSync(cacheDir)).toBe(false);
  });
});

describe('a kept payload', () => {
  // 2.5 pieces of copy()'s 1 MB buffer, each byte telling its place.
  const payload = Buffer.from(Array.from({ length: 2.5 * 2 ** 20 }, (_, i) => (i * 7 + (i >> 20)) % 251));

  it('is found only under its key, and read whole or in ranges', () => {
    openKeptAnswer(cacheDir, 'slot', 'key').save([payload.subarray(0, 1000), payload.subarray(1000)]);
    expect(openKeptAnswer(cacheDir, 'slot', 'other key')).toMatchObject({ size: -1, hit: null });
    const kept = openKeptAnswer(cacheDir, 'slot', 'key');
    expect(kept.size).toBe(payload.length);
    expect(kept.hit?.equals(payload)).toBe(true);
    const pieces: Buffer[] = [];
    kept.copy(10, 2_000_000, (piece) => {
      pieces.push(Buffer.from(piece));
      return true;
    });
    expect(Buffer.concat(pieces).equals(payload.subarray(10, 2_000_000))).toBe(true);
  });

  it('is copied through fresh buffers while the writer keeps the pieces it was given', () => {
    openKeptAnswer(cacheDir, 'slot', 'key').save(payload);
    const kept: Uint8Array[] = [];
    openKeptAnswer(cacheDir, 'slot', 'key').copy(0, payload.length, (piece) => {
      kept.push(piece); // held, not copied: an asynchronous stdout does this
      return false;
    });
    expect(kept).toHaveLength(3);
    expect(Buffer.concat(kept).equals(payload)).toBe(true);
  });
});

describe('the kept matcher index', () => {
  const matchOut = () => match('merge my pdf files');
  const keptIndex = () => {
    const files = answers().map((f) => path.join(cacheDir, f));
    const kept = files.find((f) => fs.readFileSync(f).includes('SKMI'));
    expect(kept).toBeDefined();
    return kept!;
  };

  beforeEach(() => {
    writeSkill('pdf-merge', 'Merge PDF files into one "combined document".');
    writeSkill('pull-requests', 'Review a pull request (PR) and its diffs.');
  });

  it('is kept through an edit of a body, and built again when a description changes', async () => {
    expect(await matchOut()).toBe('pdf-merge\n');
    const file = keptIndex();
    const { ino } = fs.statSync(file);
    const skillFile = path.join(root, 'pull-requests', 'SKILL.md');
    fs.appendFileSync(skillFile, 'More instructions.\n');
    expect(await match('review this PR')).toBe('pull-requests\n');
    expect(fs.statSync(file).ino).toBe(ino); // not written again (a write replaces the file)
    fs.writeFileSync(skillFile, fs.readFileSync(skillFile, 'utf8').replace('pull request (PR)', 'changelog entry'));
    expect(await match('review this PR')).toBe('');
    expect(await match('review this changelog entry')).toBe('pull-requests\n');
    expect(fs.statSync(keptIndex()).ino).not.toBe(ino);
  });

  it('is rebuilt when the kept file was truncated', async () => {
    expect(await matchOut()).toBe('pdf-merge\n');
    const file = keptIndex();
    const size = fs.statSync(file).size;
    fs.truncateSync(file, size - 7);
    expect(await matchOut()).toBe('pdf-merge\n');
    expect(fs.statSync(file).size).toBe(size); // replaced by a whole one
    expect(await match('review this PR')).toBe('pull-requests\n');
  });

  it('is rebuilt when the kept file was garbled', async () => {
    expect(await matchOut()).toBe('pdf-merge\n');
    const file = keptIndex();
    const bytes = fs.readFileSync(file);
    // Past the header: the index's bytes from the middle on.
    for (let i = Math.floor(bytes.length / 2); i < bytes.length; i++) bytes[i] = 0xff;
    fs.writeFileSync(file, bytes);
    expect(await matchOut()).toBe('pdf-merge\n');
    expect(await match('review this PR')).toBe('pull-requests\n');
  });
});
