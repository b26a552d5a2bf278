/**
 * Discovery in a fresh process (spawned by bench/discovery.ts): a cold scan, then rescans with nothing changed and
 * with one skill changed, full (every SKILL.md stat'ed) and watcher-driven (`changed`: only that skill's folder).
 * Prints one JSON line.
 *
 *   tsx bench/discovery-child.ts <root> <rounds>
 */
import fs from 'node:fs';
import { DEFAULT_LIMITS } from '../server/config';
import { createScanCache, discoverSkills } from '../server/skills/discovery/discovery';

// Time from process start to here: Node, tsx and the modules discovery needs.
const importedMs = performance.now();
const [root, roundsArg] = process.argv.slice(2);
if (!root) throw new Error('usage: discovery-child.ts <root> [rounds]');
const rounds = Number(roundsArg ?? 5);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const roots = [{ path: root, scope: 'project' as const, kind: 'configured' as const }];
const cache = createScanCache();
const scan = (changed?: string[]) => discoverSkills(roots, { limits: DEFAULT_LIMITS, cache, changed });

const t = performance.now();
const cold = await scan();
const coldMs = performance.now() - t;
// With --expose-gc (bench/discovery.ts passes it): what the scan keeps, not what it has not freed yet.
(globalThis as { gc?: () => void }).gc?.();
const heapAfterCold = process.memoryUsage().heapUsed;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const at = performance.now();
  await fn();
  return performance.now() - at;
}

const fullUnchanged: number[] = [];
const watchUnchanged: number[] = [];
const fullOneChanged: number[] = [];
const watchOneChanged: number[] = [];
const skill = cold.skills[Math.floor(cold.skills.length / 2)]!;
const original = fs.readFileSync(skill.file, 'utf8');
let edits = 0;
function editOne(): string {
  edits++;
  fs.writeFileSync(skill.file, original.replace('description: ', `description: (edit ${edits}) `));
  const when = new Date(Date.now() + edits * 1000);
  fs.utimesSync(skill.file, when, when);
  return skill.file;
}

for (let i = 0; i < rounds; i++) {
  fullUnchanged.push(await timed(() => scan()));
  // The watcher reports nothing when nothing changed; this is the cost of a stray event outside any skill.
  watchUnchanged.push(await timed(() => scan([`${root}/README.md`])));
  editOne();
  fullOneChanged.push(await timed(() => scan()));
  const file = editOne();
  watchOneChanged.push(await timed(() => scan([file])));
}
const last = await scan();
if (!last.skills.find((s) => s.name === skill.name)?.description.startsWith(`(edit ${edits})`)) {
  throw new Error('the last edit was not picked up');
}
fs.writeFileSync(skill.file, original);

console.log(
  JSON.stringify({
    skills: cold.skills.length,
    diagnostics: cold.diagnostics.length,
    importMs: importedMs,
    coldMs,
    fullUnchangedMs: median(fullUnchanged),
    watchUnchangedMs: median(watchUnchanged),
    fullOneChangedMs: median(fullOneChanged),
    watchOneChangedMs: median(watchOneChanged),
    maxRssMB: process.resourceUsage().maxRSS / 1024,
    heapAfterColdMB: heapAfterCold / 1024 / 1024,
    rounds,
  }),
);
