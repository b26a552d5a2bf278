/** Live reload figures: watcher setup over a large root, and how long an edit takes to reach `registry.current()`. */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../server/config';
import { createSkillRegistry } from '../server/skills/registry';

export interface WatchFigures {
  skills: number;
  /** Paths watched (folders, skill folders, lookouts for missing roots). */
  watchedPaths: number;
  /** inotify watches the process holds while watching (Linux only; null elsewhere). */
  inotifyWatches: number | null;
  setupMs: number;
  /** Edit of one SKILL.md until `current()` shows it (includes the 200 ms debounce); median of `rounds`. */
  editVisibleMs: number;
  /** A new skill folder until `current()` lists it. */
  addVisibleMs: number;
  rounds: number;
}

function inotifyWatches(): number | null {
  if (process.platform !== 'linux') return null;
  let count = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (!fs.readlinkSync(`/proc/self/fd/${fd}`).includes('inotify')) continue;
      count += fs
        .readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('inotify')).length;
    } catch {
      // The fd closed meanwhile.
    }
  }
  return count;
}

async function until(check: () => Promise<boolean>, ms = 20_000): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < ms) {
    if (await check()) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('live reload did not show the change in time');
}

export async function benchWatch(root: string, workDir: string, rounds: number): Promise<WatchFigures> {
  const config = loadConfig({ appDir: workDir, home: workDir, env: { SKILLCHAT_SKILL_ROOTS: root } });
  const registry = createSkillRegistry(config);
  const { skills } = await registry.current();
  const baseline = inotifyWatches() ?? 0;
  let t = performance.now();
  await registry.startWatching();
  const setupMs = performance.now() - t;
  const watches = inotifyWatches();
  const watchedPaths = registry.watchStatus().paths;
  try {
    const skill = skills[Math.floor(skills.length / 3)]!;
    const original = fs.readFileSync(skill.file, 'utf8');
    const edits: number[] = [];
    for (let i = 1; i <= rounds; i++) {
      const marker = `(live edit ${i})`;
      t = performance.now();
      fs.writeFileSync(skill.file, original.replace('description: ', `description: ${marker} `));
      await until(async () => !!(await registry.get(skill.name))?.description.startsWith(marker));
      edits.push(performance.now() - t);
    }
    fs.writeFileSync(skill.file, original);

    t = performance.now();
    const dir = path.join(root, 'zz-live-added');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: zz-live-added\ndescription: Added while watching.\n---\n');
    await until(async () => !!(await registry.get('zz-live-added')));
    const addVisibleMs = performance.now() - t;
    fs.rmSync(dir, { recursive: true });

    edits.sort((a, b) => a - b);
    return {
      skills: skills.length,
      watchedPaths,
      inotifyWatches: watches === null ? null : watches - baseline,
      setupMs,
      editVisibleMs: edits[Math.floor(edits.length / 2)]!,
      addVisibleMs,
      rounds,
    };
  } finally {
    await registry.stopWatching();
  }
}
