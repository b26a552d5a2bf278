/**
 * Live reload end to end: a registry watching temp roots sees skills added, edited, broken, fixed and removed,
 * and a root that appears after start. Polls with a deadline instead of sleeping.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AppConfig, loadConfig } from '../../config';
import { loadSkill } from '../load/skill-file';
import { createSkillRegistry, type SkillRegistry } from '../registry';
import type { SkillLoader } from './discovery';
import { nearestExisting } from './watch';

let tmp: string;
let tick = 0;
const registries: SkillRegistry[] = [];

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-watch-')));
});
afterEach(async () => {
  await Promise.all(registries.splice(0).map((r) => r.stopWatching()));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function writeSkill(root: string, name: string, description: string, dir = name): void {
  const folder = path.join(root, dir);
  fs.mkdirSync(folder, { recursive: true });
  const file = path.join(folder, 'SKILL.md');
  fs.writeFileSync(file, `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`);
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

async function watching(config: AppConfig, load?: SkillLoader): Promise<SkillRegistry> {
  const registry = createSkillRegistry(config, { load });
  registries.push(registry);
  await registry.startWatching({ debounceMs: 50 });
  return registry;
}

/** Resolves once `check` passes, polling the registry; fails with the last state after `ms`. */
async function until(registry: SkillRegistry, check: (names: Map<string, string>) => boolean, ms = 8000) {
  const deadline = Date.now() + ms;
  let names = new Map<string, string>();
  while (Date.now() < deadline) {
    const { skills } = await registry.current();
    names = new Map(skills.map((s) => [s.name, s.description]));
    if (check(names)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out; skills: ${JSON.stringify([...names])}`);
}

function scratch(name: string): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

describe('registry live reload', () => {
  it('picks up a new, an edited and a removed skill, re-reading only what changed', async () => {
    const root = scratch('basic');
    writeSkill(root, 'alpha', 'First.');
    writeSkill(root, 'beta', 'Second.');
    const { load, calls } = countingLoader();
    const registry = await watching(configFor(root), load);
    expect(registry.isWatching()).toBe(true);
    expect((await registry.current()).skills.map((s) => s.name)).toEqual(['alpha', 'beta']);
    calls.length = 0;

    writeSkill(root, 'gamma', 'Third.');
    await until(registry, (s) => s.has('gamma'));

    writeSkill(root, 'beta', 'Second, edited.');
    await until(registry, (s) => s.get('beta') === 'Second, edited.');

    fs.rmSync(path.join(root, 'alpha'), { recursive: true });
    await until(registry, (s) => !s.has('alpha'));
    expect((await registry.current()).skills.map((s) => s.name)).toEqual(['beta', 'gamma']);
    // alpha was never parsed again; only the new and the edited skill were.
    expect(calls).not.toContain('alpha');
    expect(new Set(calls)).toEqual(new Set(['gamma', 'beta']));
  });

  it('a broken edit drops the skill with an error diagnostic; the fix brings it back', async () => {
    const root = scratch('broken');
    writeSkill(root, 'fragile', 'Works.');
    const registry = await watching(configFor(root));
    const file = path.join(root, 'fragile', 'SKILL.md');

    fs.writeFileSync(file, '---\nname: fragile\ndescription: [unclosed\n---\n');
    fs.utimesSync(file, new Date(Date.now() + ++tick * 1000), new Date(Date.now() + tick * 1000));
    await until(registry, (s) => !s.has('fragile'));
    const { diagnostics } = await registry.current();
    expect(diagnostics.some((d) => d.severity === 'error' && d.skillDir === path.join(root, 'fragile'))).toBe(true);

    writeSkill(root, 'fragile', 'Works again.');
    await until(registry, (s) => s.get('fragile') === 'Works again.');
  });

  it('finds skills in new nested folders, and ignores resource changes', async () => {
    const root = scratch('nested');
    writeSkill(root, 'base', 'Base.');
    const registry = await watching(configFor(root));
    const scans: number[] = [];
    registry.subscribe((r) => scans.push(r.skills.length));

    writeSkill(root, 'deep', 'Deep inside a collection.', path.join('collection', 'group', 'deep'));
    await until(registry, (s) => s.has('deep'));
    expect((await registry.get('deep'))?.relDir).toBe('collection/group/deep');

    const before = scans.length;
    fs.mkdirSync(path.join(root, 'base', 'references'), { recursive: true });
    fs.writeFileSync(path.join(root, 'base', 'references', 'NOTES.md'), 'notes');
    fs.writeFileSync(path.join(root, 'base', 'README.md'), 'readme');
    // A change that does count, to have something to wait for: resource changes before it caused no scan.
    writeSkill(root, 'marker', 'Marker.');
    await until(registry, (s) => s.has('marker'));
    expect(scans.length - before).toBeLessThanOrEqual(2);
  });

  it('a root that does not exist yet is picked up when it appears', async () => {
    const base = scratch('late');
    const root = path.join(base, '.agents', 'skills');
    const registry = await watching(configFor(root));
    expect((await registry.current()).roots[0]).toMatchObject({ exists: false });

    writeSkill(root, 'latecomer', 'Arrived after start.');
    await until(registry, (s) => s.has('latecomer'));
    expect((await registry.current()).roots[0]).toMatchObject({ exists: true, skillCount: 1 });

    writeSkill(root, 'second', 'Then another.');
    await until(registry, (s) => s.has('second'));
  });

  it('a skill folder removed and made again is watched again', async () => {
    const root = scratch('again');
    writeSkill(root, 'phoenix', 'First life.');
    writeSkill(root, 'other', 'Stays.');
    const registry = await watching(configFor(root));

    fs.rmSync(path.join(root, 'phoenix'), { recursive: true });
    await until(registry, (s) => !s.has('phoenix'));
    writeSkill(root, 'phoenix', 'Second life.');
    await until(registry, (s) => s.get('phoenix') === 'Second life.');
    // Its new folder is watched: an edit of its SKILL.md alone (no folder added or removed) reloads it.
    writeSkill(root, 'phoenix', 'Third life.');
    await until(registry, (s) => s.get('phoenix') === 'Third life.');
  });

  it('stopWatching stops reloading', async () => {
    const root = scratch('stop');
    writeSkill(root, 'one', 'One.');
    const registry = await watching(configFor(root));
    await registry.stopWatching();
    expect(registry.isWatching()).toBe(false);
    writeSkill(root, 'two', 'Two.');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await registry.current()).skills.map((s) => s.name)).toEqual(['one']);
    expect((await registry.rescan()).skills.map((s) => s.name)).toEqual(['one', 'two']);
  });
});

describe('nearestExisting', () => {
  it('walks up to the first folder that exists', () => {
    const exists = (p: string) => p === '/a' || p === '/';
    expect(nearestExisting('/a/b/c/.agents/skills', exists)).toBe('/a');
    expect(nearestExisting('/x/.agents/skills', exists)).toBe('/');
  });
});
