import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, loadConfig } from '../config';
import { AppError } from '../errors';
import { createSkillRegistry } from '../skills/registry';
import { checkDraft, createSkill, type DraftRefused, saveSkillFile, templateFor, writeAtomic } from './authoring';

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'authoring-')));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

let n = 0;
function host() {
  n += 1;
  const base = path.join(tmp, `case-${n}`);
  const installRoot = path.join(base, 'install');
  const otherRoot = path.join(base, 'other');
  fs.mkdirSync(installRoot, { recursive: true });
  fs.mkdirSync(path.join(otherRoot, 'elsewhere'), { recursive: true });
  fs.writeFileSync(path.join(otherRoot, 'elsewhere', 'SKILL.md'), templateFor('elsewhere', 'Not ours to edit.'));
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
  return { config, registry, installRoot };
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

describe('checkDraft', () => {
  it('gives the discovery diagnostics, the catalog entry and its tokens, and the body', async () => {
    const text = '---\nname: notes\ndescription: Takes notes.\nwhen_to_use: In meetings.\nfoo: bar\n---\n\n# Notes\n';
    const check = await checkDraft(text, 'notes', DEFAULT_LIMITS);
    expect(check.loads).toBe(true);
    expect(check.catalogEntry).toBe('{"name":"notes","description":"Takes notes. In meetings."}');
    expect(check.catalogTokens).toBeGreaterThan(5);
    expect(check.body).toBe('\n# Notes\n');
    expect(check.diagnostics.map((d) => [d.severity, d.code])).toEqual([
      ['warning', 'unexpected-fields'],
      ['info', 'extension-fields'],
    ]);
    expect(JSON.stringify(check)).not.toContain(os.tmpdir());
  });

  it('says when a draft would not load', async () => {
    const check = await checkDraft('---\nname: notes\n---\nbody\n', 'notes', DEFAULT_LIMITS);
    expect(check.loads).toBe(false);
    expect(check.catalogEntry).toBeNull();
    expect(check.diagnostics.some((d) => d.severity === 'error')).toBe(true);
  });

  it('holds a name to the install rule: `Meeting_Notes` is an error here, as an install refuses it', async () => {
    const text = '---\nname: Meeting_Notes\ndescription: Writes meeting notes.\n---\nbody\n';
    const check = await checkDraft(text, 'Meeting_Notes', DEFAULT_LIMITS);
    expect(check.loads).toBe(false);
    const named = check.diagnostics.filter((d) => d.code.startsWith('name-'));
    expect(named.map((d) => [d.severity, d.code])).toEqual([
      ['error', 'name-not-lowercase'],
      ['error', 'name-invalid-characters'],
    ]);
    expect(named[0]!.hint).toMatch(/as an install requires/);
  });
});

describe('createSkill and saveSkillFile', () => {
  let h: ReturnType<typeof host>;
  beforeEach(() => {
    h = host();
  });

  it('creates from the template in the install root, then saves edits atomically and rescans', async () => {
    expect(await createSkill(h, 'meeting-notes', 'Writes meeting notes.')).toBe('meeting-notes');
    const file = path.join(h.installRoot, 'meeting-notes', 'SKILL.md');
    expect((await h.registry.get('meeting-notes'))?.description).toBe('Writes meeting notes.');
    const edited = fs.readFileSync(file, 'utf8').replace('Writes meeting notes.', 'Writes short meeting notes.');
    await saveSkillFile(h, 'meeting-notes', edited);
    expect(fs.readFileSync(file, 'utf8')).toBe(edited);
    expect((await h.registry.get('meeting-notes'))?.description).toBe('Writes short meeting notes.');
    expect(fs.readdirSync(path.dirname(file))).toEqual(['SKILL.md']); // no temp file left
  });

  it('refuses bad names, existing names, skills outside writable roots and drafts that would not load', async () => {
    expect(await status(createSkill(h, '../escape', ''))).toEqual([400, 'bad_request:skill-name']);
    expect(await status(createSkill(h, 'Bad-Name', ''))).toEqual([400, 'bad_request:skill-name']);
    expect(await status(createSkill(h, 'elsewhere', ''))).toEqual([409, 'conflict:skill']);
    expect(await status(saveSkillFile(h, 'elsewhere', templateFor('elsewhere', 'x')))).toEqual([
      403,
      'forbidden:authoring',
    ]);
    expect(await status(saveSkillFile(h, 'missing', 'x'))).toEqual([404, 'not_found:skill']);
    await createSkill(h, 'mine', 'Mine.');
    const refused = await saveSkillFile(h, 'mine', '---\nname: mine\n---\n').catch((e: DraftRefused) => e);
    expect((refused as DraftRefused).toJSON()).toMatchObject({ code: 'bad_request:draft' });
    expect((refused as DraftRefused).toJSON().diagnostics.length).toBeGreaterThan(0);
    expect(await status(saveSkillFile(h, 'mine', templateFor('renamed', 'Mine.')))).toEqual([400, 'bad_request:draft']);
    expect((await h.registry.get('mine'))?.description).toBe('Mine.');
  });
});

describe('writeAtomic', () => {
  it('replaces the file whole and leaves no temp file when the target folder is gone', async () => {
    const dir = path.join(tmp, 'atomic');
    fs.mkdirSync(dir);
    const file = path.join(dir, 'SKILL.md');
    fs.writeFileSync(file, 'old');
    await writeAtomic(file, 'new');
    expect(fs.readFileSync(file, 'utf8')).toBe('new');
    await expect(writeAtomic(path.join(dir, 'missing', 'SKILL.md'), 'x')).rejects.toThrow();
    expect(fs.readdirSync(dir)).toEqual(['SKILL.md']);
  });
});
