/**
 * The script sandbox's spec in executable form. Committed fixtures live in `fixtures/<case>/`; what git cannot
 * hold (links out, FIFOs, /dev and /proc links) is planted in a temp copy:
 *
 *   <tmp>/skill/      copy of fixtures/probe-skill, plus the links below
 *   <tmp>/outside/    a secret that must never reach a script
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findInSnapshot,
  runInJustBash as runSkillScript,
  type ScriptRunResult,
  sandboxSkillName,
  truncateUtf8,
} from './just-bash';

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const SECRET = 'OUTSIDE-SECRET-5eb1a';
// Set in the server's own environment; nothing in the sandbox may see it.
process.env.SKILLCHAT_TEST_SECRET = SECRET;
const CONFORMANCE_SKILL = path.join(import.meta.dirname, '..', '..', '.skills', 'skills-system-validation');
const posixOnly = process.platform === 'win32' ? it.skip : it;

let tmp: string;
let skill: { name: string; dir: string };
let server: http.Server;
let serverUrl: string;
let serverHits = 0;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-scripts-'));
  const dir = path.join(tmp, 'skill');
  fs.cpSync(path.join(FIXTURES, 'probe-skill'), dir, { recursive: true });
  skill = { name: 'probe-skill', dir };
  fs.mkdirSync(path.join(tmp, 'outside'));
  fs.writeFileSync(path.join(tmp, 'outside', 'secret.txt'), `${SECRET}\n`);
  fs.writeFileSync(path.join(tmp, 'outside', 'evil.sh'), `echo ${SECRET}\n`);
  if (process.platform !== 'win32') {
    fs.mkdirSync(path.join(dir, 'links'));
    fs.symlinkSync('../references/guide.md', path.join(dir, 'links', 'guide.md'));
    fs.symlinkSync('references', path.join(dir, 'refs'));
    fs.symlinkSync('../outside/secret.txt', path.join(dir, 'leak.txt'));
    fs.symlinkSync(path.join(tmp, 'outside', 'secret.txt'), path.join(dir, 'leak-absolute.txt'));
    fs.symlinkSync('../outside', path.join(dir, 'docs'));
    fs.symlinkSync('../../outside/evil.sh', path.join(dir, 'scripts', 'evil.sh'));
    fs.symlinkSync('/etc/passwd', path.join(dir, 'passwd'));
    fs.symlinkSync('/dev/zero', path.join(dir, 'zero'));
    fs.symlinkSync('/proc/self/environ', path.join(dir, 'environ'));
    execFileSync('mkfifo', [path.join(dir, 'pipe')]);
  }

  server = http.createServer((_req, res) => {
    serverHits++;
    res.end('REACHED');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(tmp, { recursive: true, force: true });
});

function lines(result: ScriptRunResult): string[] {
  return result.stdout.split('\n').filter((line) => line !== '');
}

describe('running a script', () => {
  it('runs the conformance echo.sh and prints exactly the marker', async () => {
    const result = await runSkillScript(
      { name: 'skills-system-validation', dir: path.join(FIXTURES, 'validation-skill') },
      'scripts/echo.sh',
      [],
    );
    expect(result).toMatchObject({ exitCode: 0, stdout: 'SKILLCHAT_SKILLS_SCRIPT_OK\n', stderr: '', timedOut: false });
    expect(result.truncated).toBe(false);
    expect(result.error).toBeUndefined();
    expect(result.skillPath).toBe('/skills/skills-system-validation');
  });

  it.skipIf(!fs.existsSync(path.join(CONFORMANCE_SKILL, 'scripts', 'echo.sh')))(
    "runs the app's own conformance skill the same way",
    async () => {
      const result = await runSkillScript(
        { name: 'skills-system-validation', dir: CONFORMANCE_SKILL },
        'scripts/echo.sh',
        [],
      );
      expect(result.stdout).toBe('SKILLCHAT_SKILLS_SCRIPT_OK\n');
      expect(result.exitCode).toBe(0);
    },
  );

  it('passes arguments intact, as argv, without running anything in them', async () => {
    const args = [
      'two words',
      `it's "quoted"`,
      '$(touch /tmp/pwned)',
      '`touch /tmp/pwned`',
      '; touch /tmp/pwned',
      '$HOME',
      '*',
      '',
      'line\nbreak',
      '--help',
      '-c',
    ];
    const result = await runSkillScript(skill, 'scripts/args.sh', args);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(
      [
        'count=11',
        '[two words]',
        `[it's "quoted"]`,
        '[$(touch /tmp/pwned)]',
        '[`touch /tmp/pwned`]',
        '[; touch /tmp/pwned]',
        '[$HOME]',
        '[*]',
        '[]',
        '[line\nbreak]',
        '[--help]',
        '[-c]',
        'dir=/skills/probe-skill/scripts',
        'clean',
        '',
      ].join('\n'),
    );
  });

  it('propagates exit codes and both streams', async () => {
    const failed = await runSkillScript(skill, 'scripts/exit.sh', ['3']);
    expect(failed).toMatchObject({ exitCode: 3, stdout: 'exiting with 3\n', stderr: 'to stderr\n', timedOut: false });
    expect(failed.error).toBeUndefined();
    const ok = await runSkillScript(skill, 'scripts/exit.sh', ['0']);
    expect(ok.exitCode).toBe(0);
  });

  it('gives the script a writable scratch folder as its working directory', async () => {
    const result = await runSkillScript(skill, 'scripts/scratch.sh', []);
    expect(result.stdout).toBe('cwd=/tmp\nscratch data\n');
    expect(result.exitCode).toBe(0);
  });

  it('keeps concurrent runs apart', async () => {
    const results = await Promise.all(['1', '2', '3'].map((n) => runSkillScript(skill, 'scripts/exit.sh', [n])));
    expect(results.map((r) => [r.exitCode, r.stdout])).toEqual([
      [1, 'exiting with 1\n'],
      [2, 'exiting with 2\n'],
      [3, 'exiting with 3\n'],
    ]);
  });

  it('mounts the skill under a safe folder name whatever the registry name', () => {
    expect(sandboxSkillName('pdf-tools')).toBe('pdf-tools');
    expect(sandboxSkillName('../../etc')).toBe('etc');
    expect(sandboxSkillName('a/b c')).toBe('a-b-c');
    expect(sandboxSkillName('..')).toBe('skill');
  });
});

describe('limits', () => {
  it('stops `while true; do :; done` at the command limit', async () => {
    const result = await runSkillScript(skill, 'scripts/loop.sh', [], { maxCommands: 1_000, timeoutMs: 20_000 });
    expect(result.errorCode).toBe('limit-exceeded');
    expect(result.error).toMatch(/command limit/);
    expect(result.exitCode).toBe(126);
    expect(result.timedOut).toBe(false);
    expect(result.durationMs).toBeLessThan(10_000);
  });

  it('stops `while true; do :; done` at the time limit when commands are plentiful', async () => {
    const result = await runSkillScript(skill, 'scripts/loop.sh', [], { maxCommands: 100_000_000, timeoutMs: 500 });
    expect(result.timedOut).toBe(true);
    expect(result.errorCode).toBe('timeout');
    expect(result.exitCode).toBe(124);
    expect(result.durationMs).toBeGreaterThanOrEqual(450);
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it('stops a command that iterates past the limit, and says which limit', async () => {
    const within = await runSkillScript(skill, 'scripts/seq.sh', ['5000']);
    expect(within).toMatchObject({ exitCode: 0, stdout: '5000\n' });
    const past = await runSkillScript(skill, 'scripts/seq.sh', ['50000'], { maxCommands: 10_000 });
    expect(past.errorCode).toBe('limit-exceeded');
    expect(past.error).toMatch(/iteration limit exceeded \(10000\)/);
    expect(past.exitCode).toBe(126);
  });

  it('keeps the server responsive while a script spins (it runs in a worker thread)', async () => {
    let ticks = 0;
    const interval = setInterval(() => ticks++, 10);
    const result = await runSkillScript(skill, 'scripts/loop.sh', [], { maxCommands: 100_000_000, timeoutMs: 1_000 });
    clearInterval(interval);
    expect(result.timedOut).toBe(true);
    // ~100 at 10 ms over the run on an idle machine; in-process just-bash allowed 5 in 2 s (the loop never yields).
    expect(ticks).toBeGreaterThan(20);
  });

  it('stops a script blocked in `sleep` at the time limit', async () => {
    const result = await runSkillScript(skill, 'scripts/sleep.sh', [], { timeoutMs: 500 });
    expect(result.timedOut).toBe(true);
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it('cancels a run when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const result = await runSkillScript(skill, 'scripts/loop.sh', [], {
      maxCommands: 100_000_000,
      timeoutMs: 20_000,
      signal: controller.signal,
    });
    expect(result.errorCode).toBe('aborted');
    expect(result.timedOut).toBe(false);
    expect(result.durationMs).toBeLessThan(5_000);

    const before = await runSkillScript(skill, 'scripts/exit.sh', ['0'], { signal: AbortSignal.abort() });
    expect(before).toMatchObject({ errorCode: 'aborted', stdout: '' });
  });

  it('truncates output over the cap and says so', async () => {
    // 150 lines of 10 bytes = 1,500 bytes against a 1,000-byte cap: kept, cut at the cap.
    const result = await runSkillScript(skill, 'scripts/flood.sh', ['150'], { maxOutputBytes: 1_000 });
    expect(result.truncated).toBe(true);
    expect(result.stdout).toBe('012345678\n'.repeat(100));
    expect(result.exitCode).toBe(0);

    const fits = await runSkillScript(skill, 'scripts/flood.sh', ['100'], { maxOutputBytes: 1_000 });
    expect(fits.truncated).toBe(false);
    expect(fits.stdout).toBe('012345678\n'.repeat(100));
  });

  it('stops a script that floods output far past the cap', async () => {
    // 15,000 lines of 10 bytes = 150,000 bytes against a 100,000-byte budget.
    const result = await runSkillScript(skill, 'scripts/flood.sh', ['15000'], {
      maxOutputBytes: 1_000,
      maxWrittenBytes: 100_000,
      maxCommands: 100_000,
    });
    expect(result.truncated).toBe(true);
    expect(result.errorCode).toBe('output-limit');
    expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(1_000);
    expect(result.exitCode).toBe(126);
  });

  it('cuts a large single-command output at the cap, keeping its start', async () => {
    const result = await runSkillScript(skill, 'scripts/flood-one.sh', [], { maxOutputBytes: 1_000 });
    expect(result.truncated).toBe(true);
    expect(result.errorCode).toBeUndefined();
    expect(result.exitCode).toBe(0);
    expect(result.stdout.startsWith('start\n     ')).toBe(true);
    expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(1_000);
  });

  it('lets a script build a multi-megabyte file in /tmp, and stops one that writes past the budget', async () => {
    const fits = await runSkillScript(skill, 'scripts/fill-scratch.sh', ['20']);
    expect(fits).toMatchObject({ exitCode: 0, stdout: 'bytes=2000000\n' });
    const over = await runSkillScript(skill, 'scripts/fill-scratch.sh', ['20'], { maxWrittenBytes: 500_000 });
    expect(over.errorCode).toBe('output-limit');
    expect(over.stdout).not.toContain('bytes=');
  });

  it('truncates on a UTF-8 character boundary', () => {
    expect(truncateUtf8('aé€😀', 4)).toEqual({ text: 'aé', truncated: true });
    expect(truncateUtf8('aé€😀', 6)).toEqual({ text: 'aé€', truncated: true });
    expect(truncateUtf8('aé€😀', 10)).toEqual({ text: 'aé€😀', truncated: false });
  });
});

describe('what the sandbox cannot see or do', () => {
  it('has no host files: /etc/passwd and /proc do not exist', async () => {
    const result = await runSkillScript(skill, 'scripts/read-host.sh', []);
    expect(lines(result)).toEqual(['passwd=1', 'hostname=1', 'environ=1', 'root: skills tmp ', 'secret-env=1']);
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(result.stderr).toMatch(/\/etc\/passwd: No such file or directory/);
    expect(result.stdout).not.toMatch(/root:x:0/);
  });

  posixOnly('does not follow symlinks out of the skill folder, nor FIFOs or device links', async () => {
    const result = await runSkillScript(skill, 'scripts/read-links.sh', []);
    expect(lines(result)).toEqual([
      'links/guide.md: GUIDE-INSIDE-OK',
      'refs/guide.md: GUIDE-INSIDE-OK',
      'leak.txt: unreadable',
      'leak-absolute.txt: unreadable',
      'docs/secret.txt: unreadable',
      'passwd: unreadable',
      'zero: unreadable',
      'environ: unreadable',
      'pipe: unreadable',
    ]);
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(result.omitted).toEqual(
      expect.arrayContaining([
        { path: 'leak.txt', reason: 'symlink-outside' },
        { path: 'leak-absolute.txt', reason: 'symlink-outside' },
        { path: 'docs', reason: 'symlink-outside' },
        { path: 'zero', reason: 'symlink-outside' },
        { path: 'pipe', reason: 'special-file' },
      ]),
    );
    // The FIFO was never opened for a blocking read: the server's own file reads still answer at once.
    const read = fs.promises.readFile(path.join(skill.dir, 'SKILL.md'), 'utf8');
    const timeout = new Promise((resolve) => setTimeout(() => resolve('HUNG'), 2_000));
    expect(await Promise.race([read, timeout])).toMatch(/^---/);
  });

  posixOnly('refuses to run a script that is a link out of the skill folder', async () => {
    const result = await runSkillScript(skill, 'scripts/evil.sh', []);
    expect(result.errorCode).toBe('not-found');
    expect(result.error).toMatch(/symlink-outside/);
    expect(result.stdout).toBe('');
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it('has no network: curl and wget do not exist', async () => {
    const before = serverHits;
    const result = await runSkillScript(skill, 'scripts/network.sh', [serverUrl]);
    expect(lines(result)).toEqual(['curl=127', 'wget=127']);
    expect(result.stderr).toMatch(/curl: command not found/);
    expect(result.stdout).not.toContain('REACHED');
    expect(serverHits).toBe(before);
  });

  it('keeps the skill folder read-only for commands, and the script goes on', async () => {
    const result = await runSkillScript(skill, 'scripts/write-skill.sh', []);
    expect(lines(result)).toEqual(['touch=1', 'mkdir=1', 'rm=1', 'cp=1', 'tee=1', 'skill file still there: ---']);
    expect(result.stderr).toMatch(/EROFS: read-only file system, \w+ '\/skills\/probe-skill\//);
    expect(fs.existsSync(path.join(skill.dir, 'touched'))).toBe(false);
    expect(fs.existsSync(path.join(skill.dir, 'SKILL.md'))).toBe(true);
  });

  it('reports a redirect into the skill folder as a read-only error, and the process keeps working', async () => {
    const result = await runSkillScript(skill, 'scripts/redirect-into-skill.sh', []);
    expect(result.errorCode).toBe('read-only');
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/EROFS: read-only file system, write '\/skills\/probe-skill\/planted.txt'/);
    expect(result.stdout).not.toContain('after');
    expect(fs.existsSync(path.join(skill.dir, 'planted.txt'))).toBe(false);

    const next = await runSkillScript(skill, 'scripts/exit.sh', ['0']);
    expect(next.stdout).toBe('exiting with 0\n');
  });
});

describe('path validation', () => {
  it.each([
    ['../outside/evil.sh'],
    ['scripts/../../outside/evil.sh'],
    ['/etc/passwd.sh'],
    ['scripts\\echo.sh'],
    ['~/x.sh'],
    [''],
    ['scripts/\u0000.sh'],
  ])('rejects %j before touching the disk', async (scriptPath) => {
    const result = await runSkillScript(skill, scriptPath, []);
    expect(result.errorCode).toBe('invalid-path');
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.error).not.toContain(tmp);
  });

  it('refuses files that are not scripts, and missing ones', async () => {
    const notes = await runSkillScript(skill, 'scripts/notes.txt', []);
    expect(notes.errorCode).toBe('unsupported-script');
    const missing = await runSkillScript(skill, 'scripts/missing.sh', []);
    expect(missing).toMatchObject({ errorCode: 'not-found', exitCode: 127 });
    expect(missing.error).not.toContain(tmp);
    const gone = await runSkillScript({ name: 'gone', dir: path.join(tmp, 'no-such-skill') }, 'scripts/echo.sh', []);
    expect(gone.errorCode).toBe('skill-unreadable');
    expect(gone.error).not.toContain(tmp);
  });

  it('finds a script through inside links the way the sandbox will', () => {
    const data = new Uint8Array(0);
    const entries = [
      { type: 'dir', path: '/scripts' },
      { type: 'file', path: '/scripts/run.sh', data, mode: 0o755 },
      { type: 'symlink', path: '/bin', target: 'scripts' },
      { type: 'symlink', path: '/scripts/alias.sh', target: 'run.sh' },
      { type: 'symlink', path: '/loop', target: 'loop' },
    ] as const;
    const list = [...entries];
    expect(findInSnapshot(list, 'scripts/run.sh')?.path).toBe('/scripts/run.sh');
    expect(findInSnapshot(list, 'bin/run.sh')?.path).toBe('/scripts/run.sh');
    expect(findInSnapshot(list, 'bin/alias.sh')?.path).toBe('/scripts/run.sh');
    expect(findInSnapshot(list, 'scripts/missing.sh')).toBeUndefined();
    expect(findInSnapshot(list, 'loop/x.sh')).toBeUndefined();
    expect(findInSnapshot(list, 'scripts/run.sh/x.sh')).toBeUndefined();
  });

  it('rejects arguments that are not strings', async () => {
    const result = await runSkillScript(skill, 'scripts/args.sh', [1 as unknown as string]);
    expect(result.errorCode).toBe('invalid-args');
  });
});

describe('python', () => {
  it('runs a .py script with its arguments, its skill files and its exit code', async () => {
    const result = await runSkillScript(skill, 'scripts/hello.py', ['7', 'two words', '$(id)', '--help']);
    expect(result.stdout).toBe(
      [
        '["7", "two words", "$(id)", "--help"]',
        "hello from a sibling module 'two\\nlines' __main__ hello.py",
        'GUIDE-INSIDE-OK',
        'cwd=/tmp',
        '',
      ].join('\n'),
    );
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(7);
    // Not an assertion on speed (the machine is shared); printed so the report can quote it.
    console.info(`python script run: ${result.durationMs} ms`);
  });

  posixOnly('cannot read the host, follow links out, write the skill folder or reach the network', async () => {
    const before = serverHits;
    const result = await runSkillScript(skill, 'scripts/probe.py', [serverUrl]);
    expect(lines(result)).toEqual([
      'passwd: FileNotFoundError',
      'leak.txt: FileNotFoundError',
      'write: OSError',
      'env: None',
      'http: URLError',
    ]);
    expect(serverHits).toBe(before);
    expect(fs.existsSync(path.join(skill.dir, 'planted.txt'))).toBe(false);
  });

  it('stops a Python infinite loop at the time limit', async () => {
    const result = await runSkillScript(skill, 'scripts/loop.py', [], { timeoutMs: 1_500 });
    expect(result.timedOut).toBe(true);
    expect(result.errorCode).toBe('timeout');
    expect(result.durationMs).toBeLessThan(8_000);
  });

  it('refuses .py scripts when Python is turned off', async () => {
    const result = await runSkillScript(skill, 'scripts/hello.py', [], { python: false });
    expect(result.errorCode).toBe('unsupported-script');
  });
});
