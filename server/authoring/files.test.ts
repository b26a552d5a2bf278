import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { AppError } from '../errors';
import { createSkillRegistry } from '../skills/registry';
import { readSkillResource } from '../skills/resources/resources';
import { templateFor } from './authoring';
import { checkEditablePath, listEditableFiles, readTextFile, saveTextFile } from './files';

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'authoring-files-')));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

let n = 0;
function host() {
  n += 1;
  const base = path.join(tmp, `case-${n}`);
  const installRoot = path.join(base, 'install');
  const otherRoot = path.join(base, 'other');
  const skillDir = path.join(installRoot, 'notes');
  fs.mkdirSync(path.join(skillDir, 'references'), { recursive: true });
  fs.writeFileSync(path.join(skillDir, 'SKILL.md'), templateFor('notes', 'Takes notes.'));
  fs.writeFileSync(path.join(skillDir, 'references', 'x.md'), '# Old\n');
  fs.writeFileSync(path.join(skillDir, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0xff, 0xfe]));
  fs.mkdirSync(path.join(otherRoot, 'elsewhere'), { recursive: true });
  fs.writeFileSync(path.join(otherRoot, 'elsewhere', 'SKILL.md'), templateFor('elsewhere', 'Not ours to edit.'));
  fs.writeFileSync(path.join(otherRoot, 'elsewhere', 'guide.md'), 'guide\n');
  const config = loadConfig({
    appDir: base,
    home: base,
    env: {
      SKILLCHAT_SKILL_ROOTS: [installRoot, otherRoot].join(path.delimiter),
      SKILLCHAT_INSTALL_ROOT: installRoot,
      SKILLCHAT_WATCH: '0',
    },
  });
  const registry = createSkillRegistry(config);
  return { config, registry, skillDir, outside: path.join(base, 'outside') };
}

async function status(promise: Promise<unknown>): Promise<[number, string]> {
  try {
    await promise;
    return [200, ''];
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return [error.status, error.code];
  }
}

describe('checkEditablePath', () => {
  it.each([
    ['..', '../x.md'],
    ['a .. segment inside', 'references/../../x.md'],
    ['absolute', '/etc/passwd'],
    ['backslash', 'references\\x.md'],
    ['control character', 'references/x\n.md'],
    ['hidden file', 'references/.env'],
    ['hidden folder', '.git/config'],
    ['empty', ''],
    ['SKILL.md (its own editor)', 'SKILL.md'],
  ])('refuses %s', (_case, rel) => {
    expect(() => checkEditablePath(rel)).toThrow(AppError);
  });

  it('accepts and normalises a plain relative path', () => {
    expect(checkEditablePath('./references//x.md')).toEqual(['references', 'x.md']);
  });
});

describe('saveTextFile', () => {
  it('writes by temp file + rename in the same folder, leaves no temp file, and the reader sees the new text', async () => {
    const h = host();
    const file = path.join(h.skillDir, 'references', 'x.md');
    const before = fs.statSync(file).ino;
    const saved = await saveTextFile(h, 'notes', 'references/x.md', '# New\n');
    expect(saved).toEqual({ path: 'references/x.md', bytes: 6, created: false, diagnostics: [] });
    expect(fs.readFileSync(file, 'utf8')).toBe('# New\n');
    // A rename gives a new inode; an in-place write would keep the old one.
    expect(fs.statSync(file).ino).not.toBe(before);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['x.md']);
    const skill = await h.registry.get('notes');
    const read = await readSkillResource(skill!, 'references/x.md');
    expect(read.ok && read.content).toBe('# New\n');
  });

  it('rescans the registry after a save, and not after a refusal', async () => {
    const h = host();
    let rescans = 0;
    const spied = {
      config: h.config,
      registry: {
        get: h.registry.get,
        rescan: () => {
          rescans += 1;
          return h.registry.rescan();
        },
      },
    };
    await saveTextFile(spied, 'notes', 'references/x.md', 'new\n');
    expect(rescans).toBe(1);
    await status(saveTextFile(spied, 'notes', '../x.md', 'new\n'));
    expect(rescans).toBe(1);
  });

  it('creates a new file in a new subfolder and lists it', async () => {
    const h = host();
    const saved = await saveTextFile(h, 'notes', 'scripts/tool/run.py', 'print("hi")\n');
    expect(saved.created).toBe(true);
    expect(fs.readFileSync(path.join(h.skillDir, 'scripts', 'tool', 'run.py'), 'utf8')).toBe('print("hi")\n');
    expect((await listEditableFiles(h, 'notes')).map((f) => f.path)).toContain('scripts/tool/run.py');
  });

  it('returns the hidden-text warning and still saves', async () => {
    const h = host();
    const saved = await saveTextFile(h, 'notes', 'references/x.md', 'ok\u200bthere\n');
    expect(saved.diagnostics).toHaveLength(1);
    expect(saved.diagnostics[0]).toMatchObject({ severity: 'warning', code: 'hidden-text' });
    expect(saved.diagnostics[0]!.message).toContain('U+200B');
  });

  it('refuses a skill outside a writable root (403) and an unknown skill (404)', async () => {
    const h = host();
    expect(await status(saveTextFile(h, 'elsewhere', 'guide.md', 'x'))).toEqual([403, 'forbidden:authoring']);
    expect(fs.readFileSync(path.join(path.dirname(h.skillDir), '..', 'other', 'elsewhere', 'guide.md'), 'utf8')).toBe(
      'guide\n',
    );
    expect(await status(saveTextFile(h, 'missing', 'a.md', 'x'))).toEqual([404, 'not_found:skill']);
  });

  it('refuses bad paths with 400 before touching the disk', async () => {
    const h = host();
    for (const rel of ['../escape.md', '/abs.md', 'a\\b.md', 'a\u0001.md', '.hidden', 'SKILL.md']) {
      expect(await status(saveTextFile(h, 'notes', rel, 'x'))).toEqual([400, 'bad_request:file-path']);
    }
    expect(fs.existsSync(path.join(path.dirname(h.skillDir), 'escape.md'))).toBe(false);
  });

  it('refuses text over the size cap (413), with a NUL or a lone surrogate (415)', async () => {
    const h = host();
    const big = 'a'.repeat(h.config.limits.maxResourceBytes + 1);
    expect(await status(saveTextFile(h, 'notes', 'big.md', big))).toEqual([413, 'payload_too_large:file']);
    expect(await status(saveTextFile(h, 'notes', 'nul.md', 'a\0b'))).toEqual([415, 'unsupported_media_type:file']);
    expect(await status(saveTextFile(h, 'notes', 'sur.md', 'a\ud800b'))).toEqual([415, 'unsupported_media_type:file']);
    expect(fs.readdirSync(h.skillDir).sort()).toEqual(['SKILL.md', 'logo.png', 'references']);
  });

  it('refuses a symlinked target, a symlinked folder on the way, and a non-regular target', async () => {
    const h = host();
    fs.mkdirSync(h.outside, { recursive: true });
    fs.writeFileSync(path.join(h.outside, 'secret.md'), 'secret\n');
    fs.symlinkSync(path.join(h.outside, 'secret.md'), path.join(h.skillDir, 'link.md'));
    fs.symlinkSync(h.outside, path.join(h.skillDir, 'linked'));
    fs.mkdirSync(path.join(h.skillDir, 'folder.md'));
    fs.writeFileSync(path.join(h.skillDir, 'plain'), 'x');
    expect(await status(saveTextFile(h, 'notes', 'link.md', 'x'))).toEqual([400, 'bad_request:file-path']);
    expect(await status(saveTextFile(h, 'notes', 'linked/new.md', 'x'))).toEqual([400, 'bad_request:file-path']);
    expect(await status(saveTextFile(h, 'notes', 'folder.md', 'x'))).toEqual([400, 'bad_request:file-path']);
    expect(await status(saveTextFile(h, 'notes', 'plain/new.md', 'x'))).toEqual([400, 'bad_request:file-path']);
    expect(fs.readFileSync(path.join(h.outside, 'secret.md'), 'utf8')).toBe('secret\n');
    expect(fs.readdirSync(h.outside)).toEqual(['secret.md']);
  });
});

describe('readTextFile', () => {
  it('reads a text file, 415 for a binary one, 404 for a missing one, 400 for a bad path', async () => {
    const h = host();
    expect(await readTextFile(h, 'notes', 'references/x.md')).toEqual({
      path: 'references/x.md',
      text: '# Old\n',
      bytes: 6,
    });
    expect(await status(readTextFile(h, 'notes', 'logo.png'))).toEqual([415, 'unsupported_media_type:file']);
    expect(await status(readTextFile(h, 'notes', 'references/none.md'))).toEqual([404, 'not_found:file']);
    expect(await status(readTextFile(h, 'notes', '../x.md'))).toEqual([400, 'bad_request:file-path']);
  });
});
