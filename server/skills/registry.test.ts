import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AppConfig, loadConfig } from '../config';
import type { SkillLoader } from './discovery/discovery';
import { loadSkill } from './load/skill-file';
import { createSkillRegistry, sameMatcherInput } from './registry';
import { skillRecord } from './testing';

let tmp: string;
let base: string;
let tick = 0;

function writeSkill(name: string, description: string, body = 'Body.'): void {
  const dir = path.join(base, name);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'SKILL.md');
  fs.writeFileSync(file, `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`);
  // Distinct mtimes between edits even on coarse-timestamp filesystems.
  const when = new Date(Date.now() + ++tick * 1000);
  fs.utimesSync(file, when, when);
}

function configFor(...roots: string[]): AppConfig {
  return loadConfig({
    appDir: tmp,
    home: tmp,
    env: { NODE_ENV: 'test', SKILLCHAT_SKILL_ROOTS: roots.join(path.delimiter) },
  });
}

function countingLoader(): { load: SkillLoader; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    load: (dir, options) => {
      calls.push(options.relDir);
      return loadSkill(dir, options);
    },
  };
}

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-registry-')));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});
beforeEach(() => {
  base = fs.mkdtempSync(path.join(tmp, 'root-'));
  writeSkill('csv-to-json', 'Convert CSV files to JSON.');
  writeSkill('pdf', 'Extract text from PDF files.');
});

describe('createSkillRegistry', () => {
  it('scans on first use, then serves the same result until rescan', async () => {
    const { load, calls } = countingLoader();
    const registry = createSkillRegistry(configFor(base), { load });
    const first = await registry.current();
    expect(first.skills.map((s) => s.name)).toEqual(['csv-to-json', 'pdf']);
    expect(await registry.current()).toBe(first);
    expect((await registry.get('pdf'))?.description).toBe('Extract text from PDF files.');
    expect(await registry.get('missing')).toBeUndefined();
    expect(calls).toHaveLength(2);
  });

  it('concurrent calls share one scan; rescans re-parse only what changed', async () => {
    const { load, calls } = countingLoader();
    const registry = createSkillRegistry(configFor(base), { load });
    const [a, b, c] = await Promise.all([registry.rescan(), registry.rescan(), registry.current()]);
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(calls.sort()).toEqual(['csv-to-json', 'pdf']);

    calls.length = 0;
    const unchanged = await registry.rescan();
    expect(unchanged).not.toBe(a);
    expect(calls).toEqual([]);

    writeSkill('pdf', 'Extract text and tables from PDF files.');
    writeSkill('docx', 'Edit Word documents.');
    const changed = await registry.rescan();
    expect(calls.sort()).toEqual(['docx', 'pdf']);
    expect(await registry.current()).toBe(changed);
    expect((await registry.get('docx'))?.name).toBe('docx');
  });

  it('the matcher is rebuilt only when names or descriptions change', async () => {
    const registry = createSkillRegistry(configFor(base));
    const m1 = await registry.matcher();
    expect(m1.match('convert this csv file to json')[0]?.name).toBe('csv-to-json');
    expect(await registry.matcher()).toBe(m1);

    await registry.rescan();
    expect(await registry.matcher()).toBe(m1);

    writeSkill('pdf', 'Extract text from PDF files.', 'A different body.');
    await registry.rescan();
    expect(await registry.matcher()).toBe(m1);

    writeSkill('pdf', 'Merge and split PDF documents.');
    await registry.rescan();
    const m2 = await registry.matcher();
    expect(m2).not.toBe(m1);
    expect(m2.match('merge these documents')[0]?.name).toBe('pdf');
  });

  it("a person's own skills get a matcher over every skill, kept until theirs or the installed ones change", async () => {
    const registry = createSkillRegistry(configFor(base));
    const own = [skillRecord('tide-tables', '/own', { description: 'Reads tide tables for harbour pilots.' })];
    const m1 = await registry.matcherWith(own);
    expect(m1.match('read the tide tables')[0]?.name).toBe('tide-tables');
    expect(m1.match('convert this csv file to json')[0]?.name).toBe('csv-to-json');
    expect(await registry.matcherWith([...own])).toBe(m1);
    expect(await registry.matcherWith([])).toBe(await registry.matcher());

    const edited = [{ ...own[0]!, description: 'Reads tide tables and moon phases for harbour pilots.' }];
    expect(await registry.matcherWith(edited)).not.toBe(m1);

    writeSkill('pdf', 'Merge and split PDF documents.');
    await registry.rescan();
    const m2 = await registry.matcherWith(own);
    expect(m2).not.toBe(m1);
    expect(m2.match('merge these documents')[0]?.name).toBe('pdf');
  });

  it('a failed scan rejects and the next call scans again', async () => {
    let fail = true;
    const registry = createSkillRegistry(configFor(base), {
      load: (dir, options) => {
        if (fail) throw new Error('boom');
        return loadSkill(dir, options);
      },
    });
    await expect(registry.current()).rejects.toThrow('boom');
    fail = false;
    expect((await registry.current()).skills).toHaveLength(2);
  });
});

describe('sameMatcherInput', () => {
  const [a, b] = [skillRecord('alpha', '/r'), skillRecord('beta', '/r')];
  it('holds for the same names and descriptions in the same order, whatever else changed', () => {
    expect(sameMatcherInput([a, b], [a, b])).toBe(true);
    expect(sameMatcherInput([a, b], [{ ...a, size: 7, relDir: 'moved' }, b])).toBe(true);
  });
  it('fails for a changed description, a rename, another order or another count', () => {
    expect(sameMatcherInput([a, b], [{ ...a, description: 'Other.' }, b])).toBe(false);
    expect(sameMatcherInput([a, b], [{ ...a, name: 'gamma' }, b])).toBe(false);
    expect(sameMatcherInput([a, b], [b, a])).toBe(false);
    expect(sameMatcherInput([a, b], [a])).toBe(false);
  });
});
