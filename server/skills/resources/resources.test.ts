/**
 * The confined reader's spec in executable form. Committed fixtures live in `fixtures/resources/<case>/`; anything
 * git cannot hold (links out, FIFOs, sibling-prefix folders, /dev and /proc links) is built in a temp dir:
 *
 *   <tmp>/skill/          copy of fixtures/resources/basic, plus links made per test
 *   <tmp>/skill-evil/     sibling whose name starts with the skill's (defeats startsWith containment)
 *   <tmp>/outside/        secrets that must never come back
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../config';
import {
  normaliseResourcePath,
  type ResourceErrorCode,
  type ResourceResult,
  readSkillInstructions,
  readSkillResource,
} from './resources';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'resources');
const OUTSIDE_SECRET = 'OUTSIDE-SECRET-c0ffee';
const posixOnly = process.platform === 'win32' ? it.skip : it;
const linuxOnly = process.platform === 'linux' ? it : it.skip;

let tmp: string;
let realTmp: string;
let skillDir: string;
let skill: { name: string; dir: string };

function at(...segments: string[]): string {
  return path.join(tmp, ...segments);
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-resources-'));
  realTmp = fs.realpathSync(tmp);
  skillDir = at('skill');
  fs.cpSync(path.join(FIXTURES, 'basic'), skillDir, { recursive: true });
  skill = { name: 'basic', dir: skillDir };

  fs.mkdirSync(at('skill-evil'));
  fs.writeFileSync(at('skill-evil', 'secret.txt'), `${OUTSIDE_SECRET} (sibling)\n`);
  fs.mkdirSync(at('outside'));
  fs.writeFileSync(at('outside', 'secret.txt'), `${OUTSIDE_SECRET}\n`);

  if (process.platform !== 'win32') {
    // Inside -> inside: allowed.
    fs.mkdirSync(at('skill', 'links'));
    fs.symlinkSync('../references/guide.md', at('skill', 'links', 'guide.md'));
    fs.symlinkSync('references', at('skill', 'refs'));
    // Inside -> outside: refused, by file and by folder, relative and absolute targets.
    fs.symlinkSync('../outside/secret.txt', at('skill', 'leak.txt'));
    fs.symlinkSync(at('outside', 'secret.txt'), at('skill', 'leak-absolute.txt'));
    fs.symlinkSync('../outside', at('skill', 'docs'));
    fs.symlinkSync('../skill-evil', at('skill', 'evil'));
    fs.symlinkSync('/dev/zero', at('skill', 'zero'));
    fs.symlinkSync('/proc/self/environ', at('skill', 'environ'));
    fs.symlinkSync('/etc/passwd', at('skill', 'passwd'));
    // Broken and looping links.
    fs.symlinkSync('references/missing.md', at('skill', 'dangling.md'));
    fs.symlinkSync('loop-b', at('skill', 'loop-a'));
    fs.symlinkSync('loop-a', at('skill', 'loop-b'));
    execFileSync('mkfifo', [at('skill', 'pipe')]);
  }
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/**
 * Every failure goes through here: the code must match and the message must not reveal any absolute path except
 * the one the caller typed in (echoing input leaks nothing).
 */
function expectFailure(result: ResourceResult, code: ResourceErrorCode): string {
  expect(result.ok, JSON.stringify(result)).toBe(false);
  if (result.ok) throw new Error('unreachable');
  expect(result.code, result.error).toBe(code);
  expect(result.error).not.toMatch(/[\x00-\x1f\x7f]/);
  const scrubbed = result.path ? result.error.split(result.path).join('<given>') : result.error;
  for (const secret of [tmp, realTmp, os.tmpdir(), process.cwd(), os.homedir(), FIXTURES]) {
    expect(scrubbed).not.toContain(secret);
  }
  expect(scrubbed).not.toMatch(/\/(tmp|etc|proc|dev|home|root|Users|var|private)\b|[A-Za-z]:\\/);
  expect(scrubbed).not.toContain(OUTSIDE_SECRET);
  return result.error;
}

/** Refused by the containment check on the resolved path (not only by the later check on the opened file). */
function expectOutside(result: ResourceResult): void {
  const error = expectFailure(result, 'outside-skill');
  expect(error).toBe(`Path "${result.path}" is not allowed: it leads outside the skill folder`);
}

function expectText(result: ResourceResult): Extract<ResourceResult, { ok: true }> {
  expect(result.ok, JSON.stringify(result)).toBe(true);
  if (!result.ok) throw new Error('unreachable');
  expect(result.content).not.toContain(OUTSIDE_SECRET);
  return result;
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not return within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('normaliseResourcePath', () => {
  it.each([
    ['references/guide.md', 'references/guide.md'],
    ['./references/guide.md', 'references/guide.md'],
    ['references//./guide.md', 'references/guide.md'],
    ['references/', 'references'],
    ['...', '...'],
    ['..hidden/x', '..hidden/x'],
    ['%2e%2e/%2e%2e/etc/passwd', '%2e%2e/%2e%2e/etc/passwd'],
    ['a~b', 'a~b'],
  ])('%j -> %j', (input, expected) => {
    const result = normaliseResourcePath(input);
    expect(result).toMatchObject({ ok: true, path: expected });
  });
});

describe('readSkillResource: rejected before touching the disk', () => {
  // A skill folder that does not exist: if any of these reached the disk they would fail differently
  // (`unreadable` for the missing folder), so the code proves the syntactic check ran first.
  const ghost = { name: 'ghost', dir: path.join(os.tmpdir(), 'skillchat-no-such-skill-folder') };

  it.each([
    ['../SKILL.md', /Path "\.\.\/SKILL\.md" is not allowed: "\.\." segments are not permitted/],
    ['..', /"\.\." segments/],
    ['a/..', /"\.\." segments/],
    ['a/../../x', /"\.\." segments/],
    ['references/../SKILL.md', /"\.\." segments/],
    ['references/../../../../etc/passwd', /"\.\." segments/],
    ['/etc/passwd', /absolute paths are not permitted/],
    ['/', /absolute paths/],
    ['C:\\Windows', /drive paths/],
    ['C:/x', /drive paths/],
    ['c:', /drive paths/],
    ['\\\\srv\\share', /network \(UNC\) paths/],
    ['//srv/share', /network \(UNC\) paths/],
    ['~/.ssh/id_rsa', /"~" \(home folder\)/],
    ['~', /"~"/],
    ['references\\guide.md', /backslashes are not permitted/],
    ['..\\..\\x', /backslashes/],
    ['SKILL.md\0.png', /control characters/],
    ['a\nb', /control characters/],
    ['a\rb', /control characters/],
    ['a\x1bb', /control characters/],
    ['a\x7fb', /control characters/],
    ['', /^Path "" is not allowed: the path is empty; give a path relative to the skill folder/],
    ['   ', /empty/],
    ['.', /names the skill folder itself/],
    ['./', /skill folder itself/],
    ['x/'.repeat(600), /longer than 1024 characters/],
    ['a'.repeat(256), /segment is longer than 255 bytes/],
    [`${'é'.repeat(128)}.md`, /segment is longer than 255 bytes/],
  ])('%j', async (input, message) => {
    const error = expectFailure(await readSkillResource(ghost, input), 'invalid-path');
    expect(error).toMatch(message);
  });

  it('echoes a sanitised path: control characters escaped, length bounded', async () => {
    const result = await readSkillResource(ghost, `a\nb\0c\u202e${'x'.repeat(500)}`);
    expectFailure(result, 'invalid-path');
    expect(result.path).toMatch(/^a\\u000ab\\u0000c\\u202ex+…$/);
    expect(result.path.length).toBeLessThan(220);
  });

  it('refuses a non-string path (tool input is untyped at runtime)', async () => {
    const input: unknown = ['references', 'guide.md'];
    expectFailure(await readSkillResource(ghost, input as string), 'invalid-path');
  });

  it('throws on a nonsensical limit: that is a caller bug, not a user error', async () => {
    await expect(readSkillResource(skill, 'SKILL.md', { maxBytes: 0 })).rejects.toThrow(RangeError);
    await expect(readSkillResource(skill, 'SKILL.md', { maxBytes: Number.NaN })).rejects.toThrow(RangeError);
  });
});

describe('readSkillResource: files inside the skill', () => {
  it('reads a text file and reports the normalised path', async () => {
    const result = expectText(await readSkillResource(skill, './references//guide.md'));
    expect(result).toMatchObject({
      path: 'references/guide.md',
      truncated: false,
      binary: false,
      mediaType: 'text/markdown',
    });
    expect(result.content).toContain('MARKER-GUIDE-7f3a');
    expect(result.bytes).toBe(fs.statSync(at('skill', 'references', 'guide.md')).size);
    expect(result.notice).toBeUndefined();
  });

  it('guesses media types from the extension', async () => {
    expect(expectText(await readSkillResource(skill, 'scripts/echo.sh')).mediaType).toBe('text/x-shellscript');
  });

  it('reads a name that only looks URL-encoded as the literal name it is', async () => {
    fs.writeFileSync(at('skill', '%2e%2e'), 'literal percent name\n');
    try {
      expect(expectText(await readSkillResource(skill, '%2e%2e')).content).toBe('literal percent name\n');
      expectFailure(await readSkillResource(skill, '%2e%2e/outside/secret.txt'), 'not-found');
    } finally {
      fs.rmSync(at('skill', '%2e%2e'));
    }
  });

  posixOnly('follows a symlink inside the skill that points inside it (file and folder)', async () => {
    const viaFile = expectText(await readSkillResource(skill, 'links/guide.md'));
    expect(viaFile.path).toBe('links/guide.md');
    expect(viaFile.content).toContain('MARKER-GUIDE-7f3a');
    expect(expectText(await readSkillResource(skill, 'refs/guide.md')).content).toContain('MARKER-GUIDE-7f3a');
  });

  it('allows hard links (policy: package managers hard-link; they cannot be told apart from a path)', async () => {
    fs.linkSync(at('skill', 'references', 'guide.md'), at('skill', 'hard-guide.md'));
    try {
      expect(expectText(await readSkillResource(skill, 'hard-guide.md')).content).toContain('MARKER-GUIDE-7f3a');
    } finally {
      fs.rmSync(at('skill', 'hard-guide.md'));
    }
  });
});

describe('readSkillResource: refused', () => {
  it('a nonexistent file', async () => {
    const error = expectFailure(await readSkillResource(skill, 'references/missing.md'), 'not-found');
    expect(error).toBe('File "references/missing.md" does not exist in skill "basic"');
  });

  it('a path through a file (ENOTDIR)', async () => {
    expectFailure(await readSkillResource(skill, 'SKILL.md/x'), 'not-found');
  });

  it('a directory', async () => {
    expect(expectFailure(await readSkillResource(skill, 'references'), 'not-a-file')).toBe(
      'Path "references" is a folder, not a file',
    );
    expectFailure(await readSkillResource(skill, 'references/'), 'not-a-file');
  });

  it('a skill folder that no longer exists', async () => {
    const error = expectFailure(await readSkillResource({ name: 'gone', dir: at('gone') }, 'SKILL.md'), 'unreadable');
    expect(error).toMatch(/skill "gone"/);
  });

  posixOnly('a symlink to a file outside (relative and absolute target)', async () => {
    expectOutside(await readSkillResource(skill, 'leak.txt'));
    expectOutside(await readSkillResource(skill, 'leak-absolute.txt'));
    expectOutside(await readSkillResource(skill, 'passwd'));
  });

  posixOnly('a symlinked folder pointing outside', async () => {
    expectOutside(await readSkillResource(skill, 'docs/secret.txt'));
  });

  posixOnly('a sibling folder whose name starts with the skill folder name (skill-evil)', async () => {
    // The premise: a string-prefix containment check would let this sibling through.
    expect(path.join(realTmp, 'skill-evil').startsWith(path.join(realTmp, 'skill'))).toBe(true);
    expectOutside(await readSkillResource(skill, 'evil/secret.txt'));
  });

  posixOnly('a skill folder given through a symlink is resolved before containment', async () => {
    fs.symlinkSync(skillDir, at('skill-alias'));
    try {
      const aliased = { name: 'basic', dir: at('skill-alias') };
      expect(expectText(await readSkillResource(aliased, 'references/guide.md')).content).toContain('MARKER');
      expectOutside(await readSkillResource(aliased, 'leak.txt'));
    } finally {
      fs.rmSync(at('skill-alias'));
    }
  });

  posixOnly('a symlink to /dev/zero', async () => {
    expectOutside(await withTimeout(readSkillResource(skill, 'zero'), 5000, '/dev/zero read'));
  });

  linuxOnly('a symlink to /proc/self/environ', async () => {
    expectOutside(await readSkillResource(skill, 'environ'));
  });

  posixOnly('a dangling symlink and a symlink loop', async () => {
    expectFailure(await readSkillResource(skill, 'dangling.md'), 'not-found');
    expectFailure(await readSkillResource(skill, 'loop-a'), 'unreadable');
  });

  posixOnly('a FIFO, quickly, even many at once, without starving other reads', async () => {
    const started = Date.now();
    // More concurrent FIFO reads than libuv has threads (4): a blocking open would hang all of them and the guide.
    const fifoReads = Array.from({ length: 12 }, () => readSkillResource(skill, 'pipe'));
    const guide = readSkillResource(skill, 'references/guide.md');
    const results = await withTimeout(Promise.all([...fifoReads, guide]), 5000, 'FIFO reads');
    for (const result of results.slice(0, -1)) {
      expect(expectFailure(result, 'not-a-file')).toBe(
        'Path "pipe" is not a regular file (it is a FIFO, socket or device)',
      );
    }
    expect(expectText(results.at(-1)!).content).toContain('MARKER-GUIDE-7f3a');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  posixOnly('an unreadable file names only the relative path', async () => {
    if (process.getuid?.() === 0) return; // root reads everything; nothing to assert
    fs.writeFileSync(at('skill', 'private.txt'), 'private');
    fs.chmodSync(at('skill', 'private.txt'), 0o000);
    try {
      expectFailure(await readSkillResource(skill, 'private.txt'), 'unreadable');
    } finally {
      fs.rmSync(at('skill', 'private.txt'));
    }
  });
});

describe('readSkillResource: size and encoding', () => {
  it('truncates a big file at the default limit with a notice', async () => {
    const size = 1024 * 1024;
    fs.writeFileSync(at('skill', 'big.txt'), 'x'.repeat(size));
    try {
      const result = expectText(await readSkillResource(skill, 'big.txt'));
      expect(DEFAULT_LIMITS.maxResourceBytes).toBe(65536);
      expect(result.truncated).toBe(true);
      expect(result.bytes).toBe(size);
      expect(result.content.length).toBe(65536);
      expect(result.notice).toBe('[truncated: showing the first 65536 of 1048576 bytes]');
    } finally {
      fs.rmSync(at('skill', 'big.txt'));
    }
  });

  it.each([
    ['a 3-byte character', 'aaaaaaaaa€bbb', 'aaaaaaaaa', 9], // € is bytes 9..11; cutting at 10 would split it
    ['a 4-byte character', 'aaaaaaaa😀bbb', 'aaaaaaaa', 8], // 😀 is bytes 8..11
    ['a character ending at the limit', 'aaaaaaa€bbb', 'aaaaaaa€', 10],
  ])('cuts on a UTF-8 boundary, not inside %s', async (_, text, shown, shownBytes) => {
    fs.writeFileSync(at('skill', 'multibyte.txt'), text);
    try {
      const result = expectText(await readSkillResource(skill, 'multibyte.txt', { maxBytes: 10 }));
      expect(result).toMatchObject({ truncated: true, binary: false, content: shown });
      expect(result.notice).toBe(`[truncated: showing the first ${shownBytes} of ${Buffer.byteLength(text)} bytes]`);
    } finally {
      fs.rmSync(at('skill', 'multibyte.txt'));
    }
  });

  it('does not truncate a file of exactly the limit', async () => {
    fs.writeFileSync(at('skill', 'exact.txt'), 'x'.repeat(10));
    try {
      const result = expectText(await readSkillResource(skill, 'exact.txt', { maxBytes: 10 }));
      expect(result).toMatchObject({ truncated: false, bytes: 10, content: 'x'.repeat(10) });
      expect(result.notice).toBeUndefined();
    } finally {
      fs.rmSync(at('skill', 'exact.txt'));
    }
  });

  it('describes a binary file instead of returning its bytes', async () => {
    const bytes = fs.statSync(at('skill', 'assets', 'logo.png')).size;
    const result = expectText(await readSkillResource(skill, 'assets/logo.png'));
    expect(result).toMatchObject({ binary: true, mediaType: 'image/png', bytes, truncated: false });
    expect(result.content).toBe(`Binary file assets/logo.png (image/png, ${bytes} bytes) — not shown.`);
  });

  it('hands back the exact bytes with withBytes (the skill server publishes them), binary or not', async () => {
    const png = expectText(await readSkillResource(skill, 'assets/logo.png', { withBytes: true }));
    expect(png.data?.equals(fs.readFileSync(at('skill', 'assets', 'logo.png')))).toBe(true);
    const latin1 = expectText(await readSkillResource(skill, 'references/latin1.txt', { withBytes: true }));
    expect(latin1.data?.equals(fs.readFileSync(at('skill', 'references', 'latin1.txt')))).toBe(true);
    expect(expectText(await readSkillResource(skill, 'assets/logo.png')).data).toBeUndefined();
  });

  it('treats invalid UTF-8 without NUL bytes as binary', async () => {
    const result = expectText(await readSkillResource(skill, 'references/latin1.txt'));
    expect(result).toMatchObject({ binary: true, mediaType: 'text/plain' });
    expect(result.content).toMatch(/^Binary file references\/latin1\.txt/);
  });

  it('treats a NUL byte as binary and an unknown extension as application/octet-stream', async () => {
    fs.writeFileSync(at('skill', 'data.bin2'), Buffer.from('text\0more'));
    try {
      const result = expectText(await readSkillResource(skill, 'data.bin2'));
      expect(result).toMatchObject({ binary: true, mediaType: 'application/octet-stream' });
    } finally {
      fs.rmSync(at('skill', 'data.bin2'));
    }
  });

  it('reads an empty file as empty text', async () => {
    fs.writeFileSync(at('skill', 'empty.md'), '');
    try {
      expect(expectText(await readSkillResource(skill, 'empty.md'))).toMatchObject({ content: '', bytes: 0 });
    } finally {
      fs.rmSync(at('skill', 'empty.md'));
    }
  });
});

describe('readSkillInstructions', () => {
  const fixture = (name: string, file = 'SKILL.md') => ({
    name,
    dir: path.join(FIXTURES, name),
    file: path.join(FIXTURES, name, file),
  });

  it('returns the body without the frontmatter', async () => {
    const result = await readSkillInstructions(fixture('basic'));
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (!result.ok) return;
    expect(result.path).toBe('SKILL.md');
    expect(result.frontmatterText).toContain('name: basic');
    expect(result.body).not.toContain('description:');
    expect(result.body).not.toMatch(/^---/m);
    expect(result.body).toContain('# Basic');
    expect(result.truncated).toBe(false);
  });

  it('handles a CRLF skill file', async () => {
    const result = await readSkillInstructions(fixture('crlf'));
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (!result.ok) return;
    expect(result.frontmatterText).toMatch(/name: crlf/);
    expect(result.body).not.toContain('description:');
    expect(result.body).toMatch(/^# CRLF\r?\n\r?\nFirst line of the body\.\r?\nSecond line\.\r?\n?$/);
  });

  it('handles a UTF-8 BOM (the resource itself is returned as is, BOM included)', async () => {
    const raw = await readSkillResource(fixture('bom'), 'SKILL.md');
    expect(raw.ok && raw.content.startsWith('\uFEFF---')).toBe(true);
    const result = await readSkillInstructions(fixture('bom'));
    expect(result.ok, JSON.stringify(result)).toBe(true);
    if (!result.ok) return;
    expect(result.frontmatterText).toContain('name: bom');
    expect(result.body.trim()).toBe('Body after BOM.');
  });

  it('reads a lowercase skill.md', async () => {
    const result = await readSkillInstructions(fixture('lowercase-skill-file', 'skill.md'));
    expect(result).toMatchObject({ ok: true, path: 'skill.md' });
    if (result.ok) expect(result.body.trim()).toBe('Lowercase body.');
  });

  posixOnly('goes through the confined reader: a SKILL.md linked outside is refused', async () => {
    const dir = at('linked-skill');
    fs.mkdirSync(dir);
    fs.writeFileSync(at('outside', 'SKILL.md'), `---\nname: x\ndescription: y\n---\n${OUTSIDE_SECRET}\n`);
    fs.symlinkSync(at('outside', 'SKILL.md'), path.join(dir, 'SKILL.md'));
    const result = await readSkillInstructions({ name: 'linked-skill', dir, file: path.join(dir, 'SKILL.md') });
    expect(result).toMatchObject({ ok: false, code: 'outside-skill', path: 'SKILL.md' });
    expect(JSON.stringify(result)).not.toContain(OUTSIDE_SECRET);
    expect(JSON.stringify(result)).not.toContain(tmp);
  });

  it('reports a skill file without frontmatter', async () => {
    const dir = at('no-frontmatter');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'SKILL.md'), '# Just a body\n');
    const result = await readSkillInstructions({ name: 'no-frontmatter', dir, file: path.join(dir, 'SKILL.md') });
    expect(result).toMatchObject({ ok: false, code: 'invalid-skill-file', path: 'SKILL.md' });
  });
});

describe('readSkillResource: a folder swapped for a symlink while reading', () => {
  // "realpath, then open by name" leaks here (hundreds of times a second); checking the opened descriptor does not.
  // The swapper runs in another process so the swap truly interleaves with the reads on the thread pool.
  posixOnly('never returns content from outside', async () => {
    const dir = at('race-skill');
    fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'data', 'secret.txt'), 'INSIDE\n');
    fs.mkdirSync(at('race-outside', 'data'), { recursive: true });
    fs.writeFileSync(at('race-outside', 'data', 'secret.txt'), `${OUTSIDE_SECRET}\n`);

    const swapper = `
      const fs = require('node:fs');
      const [dir, outside, iterations, ms] = process.argv.slice(1);
      const end = Date.now() + Number(ms);
      let i = 0;
      for (; i < Number(iterations) && Date.now() < end; i++) {
        fs.renameSync(dir + '/data', dir + '/data-real');
        fs.symlinkSync(outside + '/data', dir + '/data');
        for (let spin = 0; spin < 2000; spin++);
        fs.unlinkSync(dir + '/data');
        fs.renameSync(dir + '/data-real', dir + '/data');
      }
      process.stdout.write(String(i));
    `;
    const child = spawn(process.execPath, ['-e', swapper, dir, at('race-outside'), '20000', '2500'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let swaps = '';
    child.stdout.on('data', (chunk: Buffer) => {
      swaps += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    let running = true;
    void exited.then(() => {
      running = false;
    });

    const race = { self: { name: 'race', dir }, inside: 0, refused: 0, leaked: 0 };
    const reader = async () => {
      while (running) {
        const result = await readSkillResource(race.self, 'data/secret.txt');
        if (result.ok && result.content.includes(OUTSIDE_SECRET)) race.leaked++;
        else if (result.ok) race.inside++;
        else race.refused++;
      }
    };
    await withTimeout(Promise.all([reader(), reader(), reader(), reader(), exited]), 20_000, 'race');

    expect(Number(swaps)).toBeGreaterThan(300);
    expect(race.inside).toBeGreaterThan(0);
    expect(race.leaked).toBe(0);
  });
});
