import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as yauzl from 'yauzl';
import { makeZip, renameEntry, skillMd, type ZipItem } from '../../test/install/test-zip';
import { DEFAULT_LIMITS } from '../config';
import { exportSkill } from './export';
import { type InstallOptions, installSkill, uninstallSkill } from './install';
import { InstallError } from './problems';

const LIMITS = { maxFiles: 50, maxBytes: 4 * 1024 * 1024, maxRatio: 100, maxDownloadBytes: 8 * 1024 * 1024 };

let tmp: string;
let root: string;

beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-install-'));
  root = path.join(tmp, 'skills');
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function options(extra: Partial<InstallOptions> = {}): InstallOptions {
  return { root, install: LIMITS, limits: DEFAULT_LIMITS, allowFileUrls: true, ...extra };
}

async function installZip(items: readonly ZipItem[], extra: Partial<InstallOptions> = {}) {
  return installSkill({ kind: 'archive-bytes', bytes: await makeZip(items) }, options(extra));
}

/** The codes of the problems an install is refused with (it must be refused). */
async function refusal(run: Promise<unknown>): Promise<string[]> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InstallError);
  return (error as InstallError).problems.map((p) => p.code);
}

/** A refused install leaves the install root as it was: no skill folder, and no staging area, not even empty. */
function nothingLeftBehind() {
  const left = fs.existsSync(root) ? fs.readdirSync(root) : [];
  expect(left).toEqual([]);
}

const GOOD: ZipItem[] = [
  { name: 'pdf-tools/SKILL.md', content: skillMd('pdf-tools') },
  { name: 'pdf-tools/references/guide.md', content: '# Guide\n' },
];

describe('installing an archive', () => {
  it('unpacks a .skill archive into the install root under the skill name', async () => {
    const result = await installZip(GOOD);
    expect(result).toMatchObject({ name: 'pdf-tools', applied: true, replaced: false });
    expect(fs.readFileSync(path.join(root, 'pdf-tools', 'references', 'guide.md'), 'utf8')).toBe('# Guide\n');
    expect(fs.readdirSync(root)).toEqual(['pdf-tools']); // no staging area left, not even empty
  });

  it('installs side by side: one install removing the empty staging area does not break another', async () => {
    const names = Array.from({ length: 8 }, (_, i) => `skill-${i}`);
    const zips = await Promise.all(names.map((n) => makeZip([{ name: `${n}/SKILL.md`, content: skillMd(n) }])));
    await Promise.all(zips.map((bytes) => installSkill({ kind: 'archive-bytes', bytes }, options())));
    expect(fs.readdirSync(root).sort()).toEqual(names);
  });

  it('accepts SKILL.md at the top level and names the folder after the skill', async () => {
    await installZip([{ name: 'SKILL.md', content: skillMd('flat-skill') }]);
    expect(fs.existsSync(path.join(root, 'flat-skill', 'SKILL.md'))).toBe(true);
  });

  it('installs unpacked files without execute bits, whatever the archive says', async () => {
    await installZip([
      { name: 's/SKILL.md', content: skillMd('s') },
      { name: 's/scripts/run.sh', content: 'echo hi\n', mode: 0o104755 },
    ]);
    expect(fs.statSync(path.join(root, 's', 'scripts', 'run.sh')).mode & 0o7777).toBe(0o644);
  });
});

describe('archive rejections', () => {
  it('absolute path', async () => {
    const zip = renameEntry(
      await makeZip([...GOOD, { name: 'xetc/passwd', content: 'x' }]),
      'xetc/passwd',
      '/etc/passwd',
    );
    expect(await refusal(installSkill({ kind: 'archive-bytes', bytes: zip }, options()))).toEqual(['absolute-path']);
    nothingLeftBehind();
  });

  it("'..' in a path", async () => {
    const zip = renameEntry(
      await makeZip([...GOOD, { name: 'pdf-tools/xx/evil', content: 'x' }]),
      'xx/evil',
      '../evil',
    );
    expect(await refusal(installSkill({ kind: 'archive-bytes', bytes: zip }, options()))).toEqual(['parent-path']);
    expect(fs.existsSync(path.join(root, 'evil'))).toBe(false);
    nothingLeftBehind();
  });

  it('symlink', async () => {
    const items = [...GOOD, { name: 'pdf-tools/link', content: '/etc/passwd', mode: 0o120777 }];
    expect(await refusal(installZip(items))).toEqual(['symlink']);
    nothingLeftBehind();
  });

  it('device file', async () => {
    expect(await refusal(installZip([...GOOD, { name: 'pdf-tools/tty', mode: 0o020644 }]))).toEqual(['device']);
  });

  it('hard link (in a folder source)', async () => {
    const src = path.join(tmp, 'src', 'linked');
    fs.mkdirSync(src, { recursive: true });
    fs.writeFileSync(path.join(src, 'SKILL.md'), skillMd('linked'));
    fs.writeFileSync(path.join(tmp, 'outside.txt'), 'secret');
    fs.linkSync(path.join(tmp, 'outside.txt'), path.join(src, 'notes.txt'));
    expect(await refusal(installSkill({ kind: 'folder', dir: src }, options()))).toEqual(['hardlink']);
    nothingLeftBehind();
  });

  it('names that differ only by case', async () => {
    const items = [...GOOD, { name: 'pdf-tools/Notes.md', content: 'a' }, { name: 'pdf-tools/notes.md', content: 'b' }];
    expect(await refusal(installZip(items))).toEqual(['case-clash']);
  });

  it('too many files', async () => {
    const items = [...GOOD, ...Array.from({ length: 3 }, (_, i) => ({ name: `pdf-tools/f${i}.txt`, content: 'x' }))];
    expect(await refusal(installZip(items, { install: { ...LIMITS, maxFiles: 4 } }))).toEqual(['too-many-files']);
    nothingLeftBehind();
  });

  it('a 5,001-entry zip is refused with its real count, not the length of the listing', async () => {
    const items = [...GOOD, ...Array.from({ length: 4999 }, (_, i) => ({ name: `pdf-tools/f${i}.txt`, content: '' }))];
    const run = installZip(items, { install: { ...LIMITS, maxFiles: 1000 } });
    const error = (await run.catch((e: unknown) => e)) as InstallError;
    expect(error.problems).toEqual([
      {
        code: 'too-many-files',
        message: '5001 entries (files and folders); the limit is 1000 files (install.maxFiles)',
      },
    ]);
    nothingLeftBehind();
  });

  it('a folder with more files than the listing reads says "at least"', async () => {
    const src = path.join(tmp, 'src', 'many');
    fs.mkdirSync(src, { recursive: true });
    fs.writeFileSync(path.join(src, 'SKILL.md'), skillMd('many'));
    for (let i = 0; i < 4; i++) {
      fs.mkdirSync(path.join(src, `d${i}`));
      for (let j = 0; j < 40; j++) fs.writeFileSync(path.join(src, `d${i}`, `f${j}.txt`), '');
    }
    const run = installSkill({ kind: 'folder', dir: src }, options({ install: { ...LIMITS, maxFiles: 5 } }));
    const error = (await run.catch((e: unknown) => e)) as InstallError;
    expect(error.problems.map((p) => p.message)).toEqual([
      'At least 125 files and folders; the limit is 5 files (install.maxFiles)',
    ]);
    nothingLeftBehind();
  });

  it('too many bytes', async () => {
    const items = [
      ...GOOD,
      { name: 'pdf-tools/big.bin', content: Buffer.from(new Uint8Array(4096).map((_, i) => i * 7)) },
    ];
    expect(await refusal(installZip(items, { install: { ...LIMITS, maxBytes: 2048 } }))).toEqual(['too-large']);
  });

  it('zip bomb compression ratio', async () => {
    const items = [...GOOD, { name: 'pdf-tools/zeros.bin', content: Buffer.alloc(3 * 1024 * 1024) }];
    expect(await refusal(installZip(items))).toEqual(['compression-ratio']);
    nothingLeftBehind();
  });

  it('invalid SKILL.md (no description, bad name, none at all)', async () => {
    expect(await refusal(installZip([{ name: 'x/SKILL.md', content: '---\nname: x\n---\n' }]))).toEqual([
      'description-missing',
    ]);
    expect(await refusal(installZip([{ name: 'Bad_Name/SKILL.md', content: skillMd('Bad_Name') }]))).toEqual([
      'name-not-lowercase',
      'name-invalid-characters',
    ]);
    expect(await refusal(installZip([{ name: 'README.md', content: '# hi' }]))).toEqual(['skill-file-missing']);
    nothingLeftBehind();
  });

  it('name already installed', async () => {
    await installZip(GOOD);
    expect(await refusal(installZip(GOOD))).toEqual(['already-installed']);
    expect(
      await refusal(
        installZip([{ name: 'other/SKILL.md', content: skillMd('other') }], { loadedElsewhere: (n) => n === 'other' }),
      ),
    ).toEqual(['name-taken']);
  });

  it('reports every reason at once', async () => {
    const items = [
      ...GOOD,
      { name: 'pdf-tools/a', content: 'x', mode: 0o120777 },
      { name: 'pdf-tools/A', content: 'y' },
      { name: 'pdf-tools/dev', mode: 0o060644 },
    ];
    expect(await refusal(installZip(items))).toEqual(['symlink', 'case-clash', 'device']);
  });

  it('not a zip at all', async () => {
    const run = installSkill({ kind: 'archive-bytes', bytes: Buffer.from('hello') }, options());
    expect(await refusal(run)).toEqual(['not-a-zip']);
  });

  it('hidden text blocks the install when configured to', async () => {
    const hidden = `Do it.${String.fromCodePoint(0xe0041, 0xe0042)}\n`;
    const items = [{ name: 'h/SKILL.md', content: skillMd('h', 'Hidden.', '', hidden) }];
    expect(await refusal(installZip(items, { limits: { ...DEFAULT_LIMITS, hiddenText: 'block' } }))).toEqual([
      'hidden-text',
    ]);
    const warned = await installZip(items);
    expect(warned.diagnostics.map((d) => [d.severity, d.code])).toContainEqual(['warning', 'hidden-text']);
  });
});

describe('update, uninstall, export', () => {
  it('previews an update as a SKILL.md diff and file list, then applies it', async () => {
    await installZip(GOOD);
    const next = [
      { name: 'pdf-tools/SKILL.md', content: skillMd('pdf-tools', 'Does pdf-tools things.', '', 'Do it better.\n') },
      { name: 'pdf-tools/scripts/x.py', content: 'print(1)\n' },
    ];
    const preview = await installZip(next, { mode: 'preview' });
    expect(preview.applied).toBe(false);
    expect(preview.diff).toMatchObject({
      added: ['scripts/x.py'],
      removed: ['references/guide.md'],
      changed: ['SKILL.md'],
    });
    expect(preview.diff?.skillFile).toContain('-Do the thing.');
    expect(preview.diff?.skillFile).toContain('+Do it better.');
    expect(fs.existsSync(path.join(root, 'pdf-tools', 'references', 'guide.md'))).toBe(true);

    const applied = await installZip(next, { mode: 'update' });
    expect(applied).toMatchObject({ applied: true, replaced: true });
    expect(fs.existsSync(path.join(root, 'pdf-tools', 'references'))).toBe(false);
    expect(fs.readFileSync(path.join(root, 'pdf-tools', 'scripts', 'x.py'), 'utf8')).toBe('print(1)\n');
  });

  it('uninstalls only folders in the install root', async () => {
    await installZip(GOOD);
    await uninstallSkill(root, 'pdf-tools');
    expect(fs.readdirSync(root)).toEqual([]);
    expect(await refusal(uninstallSkill(root, 'pdf-tools'))).toEqual(['not-installed']);
    expect(await refusal(uninstallSkill(root, '../skills'))).toEqual(['invalid-name']);
  });

  it('exports a skill as a .skill zip that installs again', async () => {
    await installZip(GOOD);
    fs.symlinkSync('/etc/passwd', path.join(root, 'pdf-tools', 'leak'));
    const zip = await exportSkill({ name: 'pdf-tools', dir: path.join(root, 'pdf-tools') });
    const names = await zipNames(zip);
    expect(names).toEqual(['pdf-tools/SKILL.md', 'pdf-tools/references/guide.md']);
    const other = path.join(tmp, 'other');
    const result = await installSkill({ kind: 'archive-bytes', bytes: zip }, options({ root: other }));
    expect(result.name).toBe('pdf-tools');
  });
});

async function zipNames(zip: Buffer): Promise<string[]> {
  const file = await yauzl.fromBufferPromise(zip, { lazyEntries: true });
  const names: string[] = [];
  await new Promise<void>((resolve, reject) => {
    file.on('entry', (e: yauzl.Entry) => {
      names.push(e.fileName);
      file.readEntry();
    });
    file.on('end', resolve);
    file.on('error', reject);
    file.readEntry();
  });
  return names;
}

describe('git and index sources', () => {
  function git(cwd: string, ...args: string[]) {
    execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd, stdio: 'pipe' });
  }

  it('clones a git repository shallowly, drops .git and installs the skill', async () => {
    const repo = path.join(tmp, 'repo');
    fs.mkdirSync(path.join(repo, 'git-skill'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'git-skill', 'SKILL.md'), skillMd('git-skill'));
    git(repo, 'init', '-q');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'one');
    const result = await installSkill({ kind: 'url', url: pathToFileURL(repo).href }, options());
    expect(result.name).toBe('git-skill');
    expect(fs.readdirSync(path.join(root, 'git-skill'))).toEqual(['SKILL.md']);
  });

  it('refuses a repository with a symlink, and file: URLs from the web', async () => {
    const repo = path.join(tmp, 'repo2');
    fs.mkdirSync(repo);
    fs.writeFileSync(path.join(repo, 'SKILL.md'), skillMd('linky'));
    fs.symlinkSync('/etc/passwd', path.join(repo, 'passwd'));
    git(repo, 'init', '-q');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'one');
    const url = pathToFileURL(repo).href;
    expect(await refusal(installSkill({ kind: 'url', url }, options()))).toEqual(['symlink']);
    expect(await refusal(installSkill({ kind: 'url', url }, options({ allowFileUrls: false })))).toEqual([
      'invalid-url',
    ]);
  });

  it('installs from an index over HTTP when the digest matches, and refuses when it does not', async () => {
    const zip = await makeZip(GOOD);
    const digest = createHash('sha256').update(zip).digest('hex');
    let index = {
      skills: [{ name: 'pdf-tools', description: 'PDFs', url: 'pdf-tools.skill', digest: `sha256:${digest}` }],
    };
    const server = http.createServer((req, res) => {
      if (req.url === '/index.json') res.end(JSON.stringify(index));
      else if (req.url === '/pdf-tools.skill') res.end(zip);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/index.json`;
    // The test server is on loopback, which URL installs may reach only when the operator allows it.
    const local = { install: { ...LIMITS, allowHosts: ['127.0.0.1'] } };
    try {
      index = { skills: [{ ...index.skills[0]!, digest: '0'.repeat(64) }] };
      expect(await refusal(installSkill({ kind: 'url', url }, options(local)))).toEqual(['digest-mismatch']);
      index = { skills: [{ ...index.skills[0]!, digest }] };
      expect(await refusal(installSkill({ kind: 'url', url, name: 'nope' }, options(local)))).toEqual([
        'index-no-entry',
      ]);
      const result = await installSkill(
        { kind: 'url', url, name: 'pdf-tools' },
        options({ ...local, allowFileUrls: false }),
      );
      expect(result.name).toBe('pdf-tools');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
