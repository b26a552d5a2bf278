/**
 * `npm run bench`: generated skill trees in a temp dir -> discovery (fresh processes), catalog, live reload and chat
 * turn figures -> tables with PASS/MISS against the targets -> bench/out/summary.{json,md}.
 *
 *   npm run bench             1,000 and 10,000 skills (a few minutes on 2 cores)
 *   npm run bench -- --quick  1,000 skills, fewer rounds (a smoke run)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_LIMITS } from '../server/config';
import { discoverSkills } from '../server/skills/discovery';
import type { Skill } from '../server/skills/types';
import { benchCatalog, type CatalogFigures, type TokensPerSkill, tokensPerSkill } from './catalog';
import { benchChat, type LatencyFigures } from './chat';
import { benchDiscovery, type DiscoveryFigures } from './discovery';
import { generateSkills } from './generate';
import { benchSandbox, sandboxTable } from './sandbox';
import { benchWatch, type WatchFigures } from './watch';

const quick = process.argv.includes('--quick');
const SIZES = quick ? [1_000] : [1_000, 10_000];
const LARGEST = SIZES.at(-1)!;
const OUT = path.join(import.meta.dirname, 'out');

const TARGETS = {
  coldMs: 1000,
  rescanMs: 100,
  turnVsFloor: 1.5,
};

function ms(n: number): string {
  return Number.isFinite(n) ? (n >= 100 ? n.toFixed(0) : n.toFixed(1)) : '-';
}

function verdict(ok: boolean): string {
  return ok ? 'PASS' : 'MISS';
}

function table(headers: string[], rows: Array<Array<string | number>>): string {
  const lines = [`| ${headers.join(' | ')} |`, `|${headers.map(() => '---').join('|')}|`];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}

function log(text: string): void {
  process.stdout.write(`${text}\n`);
}

async function main() {
  const started = performance.now();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'skillchat-bench-'));
  const sections: string[] = [];
  const emit = (title: string, body: string) => {
    const block = `## ${title}\n\n${body}\n`;
    sections.push(block);
    log(block);
  };
  try {
    log(
      `skillchat bench${quick ? ' (quick)' : ''}: ${os.cpus().length} CPUs, load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}, Node ${process.version}`,
    );
    const roots = new Map<number, string>();
    for (const size of SIZES) {
      const t = performance.now();
      const root = path.join(work, `skills-${size}`);
      generateSkills(root, size, size);
      roots.set(size, root);
      log(`generated ${size} skills in ${ms(performance.now() - t)} ms (${root})`);
    }

    // Discovery, each size in a fresh process.
    const discovery: DiscoveryFigures[] = [];
    for (const size of SIZES) discovery.push(await benchDiscovery(roots.get(size)!, quick ? 3 : 5));
    const largest = discovery.at(-1)!;
    emit(
      'Discovery (fresh tsx process per size)',
      `${table(
        [
          'skills',
          'cold scan ms',
          'process total ms',
          'full rescan, unchanged ms',
          'full rescan, 1 changed ms',
          'watcher rescan, stray event ms',
          'watcher rescan, 1 changed ms',
          'peak RSS MB',
          'heap after cold MB',
        ],
        discovery.map((d) => [
          d.skills,
          ms(d.coldMs),
          ms(d.processMs),
          ms(d.fullUnchangedMs),
          ms(d.fullOneChangedMs),
          ms(d.watchUnchangedMs),
          ms(d.watchOneChangedMs),
          ms(d.maxRssMB),
          ms(d.heapAfterColdMB),
        ]),
      )}\n\n` +
        `- ${verdict(largest.coldMs < TARGETS.coldMs)} ${largest.skills} skills discovered cold in < ${TARGETS.coldMs} ms: ${ms(largest.coldMs)} ms (process start to exit: ${ms(largest.processMs)} ms, of which Node + tsx + imports ${ms(largest.importMs)} ms)\n` +
        `- ${verdict(largest.fullUnchangedMs < TARGETS.rescanMs)} ${largest.skills} skills rescanned unchanged in < ${TARGETS.rescanMs} ms (full rescan, every SKILL.md stat'ed): ${ms(largest.fullUnchangedMs)} ms; watcher-driven rescans: ${ms(largest.watchUnchangedMs)} ms for a stray event, ${ms(largest.watchOneChangedMs)} ms for one edited skill\n` +
        '- medians of the rescan rounds; the full rescan is what `registry.rescan()` (the admin Rescan button) does, the watcher-driven one what live reload does.',
    );

    // Skills for the in-process benches.
    const sets = new Map<number, Skill[]>();
    for (const size of SIZES) {
      const result = await discoverSkills([{ path: roots.get(size)!, scope: 'project', kind: 'configured' }], {
        limits: DEFAULT_LIMITS,
      });
      sets.set(size, result.skills);
    }
    const all = sets.get(LARGEST)!;

    // Catalog.
    const perSkill: TokensPerSkill = tokensPerSkill(all);
    const catalog: CatalogFigures[] = benchCatalog(all, [10, ...SIZES]);
    emit(
      'Catalog (o200k tokens)',
      `Tokens per skill (${perSkill.sample} sampled skills, descriptions 60-1,000 chars): our JSON block ${perSkill.jsonPerSkill.toFixed(1)}, skills-ref \`to-prompt\` XML ${perSkill.xmlPerSkill.toFixed(1)} (XML / JSON = ${perSkill.ratio.toFixed(2)}; the XML also carries each absolute SKILL.md path).\n\n` +
        `${table(
          [
            'skills',
            'budget',
            'budget tokens',
            'catalog tokens',
            'instructions tokens',
            'listed',
            'not listed',
            'shortened',
            'unbudgeted catalog tokens',
            'first build ms',
            'warm build ms (with relevance)',
            'within budget',
          ],
          catalog.map((c) => [
            c.skills,
            c.budgetName,
            c.budgetTokens,
            c.catalogTokens,
            c.instructionsTokens,
            c.listed,
            c.omitted,
            c.shortened,
            c.unbudgetedTokens,
            ms(c.firstMs),
            ms(c.warmMs),
            verdict(c.withinBudget),
          ]),
        )}\n\n` +
        `- ${verdict(catalog.every((c) => c.withinBudget))} catalog within budget at any skill count`,
    );

    // Live reload.
    const watch: WatchFigures = await benchWatch(roots.get(LARGEST)!, work, quick ? 3 : 5);
    emit(
      'Live reload',
      table(
        [
          'skills',
          'watched paths',
          'inotify watches',
          'watcher setup ms',
          'edit visible ms (median)',
          'new skill visible ms',
        ],
        [
          [
            watch.skills,
            watch.watchedPaths,
            watch.inotifyWatches ?? '-',
            ms(watch.setupMs),
            ms(watch.editVisibleMs),
            ms(watch.addVisibleMs),
          ],
        ],
      ).concat('\n\n- includes the 200 ms debounce.'),
    );

    // Chat turns, wired as the route does: the registry's skills and matcher, the budgeted catalog per chat.
    const chatSets = [
      { label: 'chat turn', skills: all.slice(0, 10) },
      { label: 'chat turn', skills: all },
    ];
    const chat: LatencyFigures[] = await benchChat({
      workDir: work,
      skillSets: chatSets,
      rounds: (skills, concurrency) => {
        if (concurrency === 1) return skills > 1000 ? (quick ? 5 : 15) : quick ? 10 : 40;
        return skills > 1000 ? (quick ? 1 : 2) : quick ? 2 : 4;
      },
    });
    const floor = chat.find((c) => c.name.startsWith('bare') && c.concurrency === 1)!;
    const small = chat.find((c) => c.name === 'chat turn' && c.concurrency === 1 && c.skills === 10)!;
    const big = chat.find((c) => c.name === 'chat turn' && c.concurrency === 1 && c.skills === all.length)!;
    emit(
      'Chat turn (in-process, offline model with no chunk delay, temp SQLite)',
      `${table(
        ['route', 'skills', 'concurrent chats', 'turns', 'TTFB p50 ms', 'TTFB p99 ms', 'total p50 ms', 'total p99 ms'],
        chat.map((c) => [
          c.name,
          c.skills,
          c.concurrency,
          c.turns,
          ms(c.ttfbP50),
          ms(c.ttfbP99),
          ms(c.totalP50),
          ms(c.totalP99),
        ]),
      )}\n\n` +
        `- ${verdict(big.totalP50 <= TARGETS.turnVsFloor * floor.totalP50)} turn with ${big.skills} skills within ${TARGETS.turnVsFloor}x the bare-route floor at p50: ${ms(big.totalP50)} ms vs ${ms(floor.totalP50)} ms (${(big.totalP50 / floor.totalP50).toFixed(1)}x). The floor writes nothing; every real turn stores the message and the answer in SQLite and runs the model, so this target compares unlike things.\n` +
        `- ${verdict(big.totalP50 <= TARGETS.turnVsFloor * small.totalP50)} what ${big.skills} installed skills add to a turn, against the same turn with 10 skills, within ${TARGETS.turnVsFloor}x at p50: ${ms(big.totalP50)} ms vs ${ms(small.totalP50)} ms (${(big.totalP50 / small.totalP50).toFixed(2)}x).\n` +
        "- Each measured turn is the first of a new chat, so it pays for building that chat's budgeted catalog; later turns of a chat reuse it.",
    );

    // Script sandbox: per-run overhead of each backend over a bare interpreter start (bench/sandbox.ts).
    const sandbox = await benchSandbox({ quick });
    emit('Script sandbox (per run, vs the same interpreter started bare on the host)', sandboxTable(sandbox));

    const summary = {
      date: new Date().toISOString(),
      quick,
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, loadavg: os.loadavg(), node: process.version },
      targets: TARGETS,
      discovery,
      catalog: { tokensPerSkill: perSkill, budgets: catalog.map(({ listedNames: _, ...c }) => c) },
      watch,
      chat,
      sandbox,
      durationMs: performance.now() - started,
    };
    fs.mkdirSync(OUT, { recursive: true });
    fs.writeFileSync(path.join(OUT, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
    fs.writeFileSync(
      path.join(OUT, 'summary.md'),
      `# skillchat bench ${summary.date}\n\n${os.cpus().length} CPUs (${summary.machine.model}), load ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} at the end, Node ${process.version}${quick ? ', quick run' : ''}\n\n${sections.join('\n')}`,
    );
    log(
      `wrote ${path.relative(process.cwd(), OUT)}/summary.json and summary.md in ${ms((performance.now() - started) / 1000)} s`,
    );
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
