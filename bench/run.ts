/**
 * `npm run bench`: generated skill trees in a temp dir -> discovery (fresh processes), the `skills` CLI (fresh
 * processes), matching quality on the labelled set, catalog, live reload, server start and chat turn figures ->
 * tables with PASS/MISS against the targets -> bench/out/summary.{json,md}.
 *
 *   npm run bench             1,000 and 10,000 skills (a few minutes on 2 cores)
 *   npm run bench -- --quick  1,000 skills, fewer rounds (a smoke run)
 *   npm run bench -- --only=cli,chat   only these sections (discovery, cli, match, catalog, watch, server,
 *                             server-load, chat, long-chat, sandbox, convert, egress, first-start);
 *                             `convert`: LibreOffice's conversions only (also part of `sandbox`)
 *                             the summary files are written for full runs only
 *   npm run bench -- --only=first-start   a fresh clone to the first page (minutes: never part of a full run)
 *   npm run bench -- --heap   server-load also takes a heap snapshot of each server after its load and sums it by
 *                             constructor
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_LIMITS } from '../server/config';
import { discoverSkills } from '../server/skills/discovery/discovery';
import type { Skill } from '../server/skills/types';
import { benchCatalog, type CatalogFigures, type TokensPerSkill, tokensPerSkill } from './catalog';
import { BEFORE_INCREMENTAL, benchChat, benchUsageCounts, type LatencyFigures, SAME_ANSWER } from './chat';
import { benchCli, benchCliVersusPi, type CliFigures, type VersusPi } from './cli';
import { benchDiscovery, type DiscoveryFigures } from './discovery';
import { benchEgress, egressTable } from './egress';
import { benchFirstStart } from './first-start';
import { generateSkills } from './generate';
import { benchLongChat, type LongChatFigures } from './long-chat';
import { matchQuality, type QualityFigures } from './match-quality';
import { benchOffice, benchRunCgroup, benchSandbox, officeTable, runCgroupTable, sandboxTable } from './sandbox';
import { benchServerLoad, heapSummary, type ServerLoadFigures } from './server-load';
import { benchServerStart, hasBuild, type ServerStartFigures } from './server-start';
import { benchWatch, type WatchFigures } from './watch';

const quick = process.argv.includes('--quick');
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const want = (section: string) => !only || only.includes(section);
const SIZES = quick ? [1_000] : [1_000, 10_000];
const LARGEST = SIZES.at(-1)!;
const OUT = path.join(import.meta.dirname, 'out');

const TARGETS = {
  coldMs: 1000,
  rescanMs: 100,
  /** The turn with the most skills over the floor, both streaming the same fixed answer, 1 chat. */
  turnVsFloor: 1.2,
  /** A built server with the most skills over the same with none: RSS after the load, time to first text. */
  serverRssVsEmpty: 1.2,
  serverTtftVsEmpty: 1.3,
  /** The first GET /api/skills and the first chat turn after the scan, over the same with 10 skills. */
  serverFirstOverMs: 300,
  cliValidateMs: 150,
  cliListMs: 600,
  cliMatchMs: 600,
  /** A cold `list --json` (fresh process) over pi's in-process load of the same skills. */
  cliColdVsPi: 1.0,
  top1: 0.95,
  /** `git clone` to the first page served, with the skills runtime installed. */
  firstStartS: 300,
  falseActivations: 0,
  longChatHtmlKB: 300,
  longChatFcpMs: 1000,
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
    if (only?.includes('first-start')) {
      const f = await benchFirstStart(work);
      emit(
        'First start (`git clone` -> `npm install` -> `npm start` -> first page)',
        `${table(
          ['clone s', 'npm install s', 'npm start to first page s', 'total s', 'npm cache'],
          [[f.cloneS.toFixed(1), f.installS.toFixed(0), f.startS.toFixed(0), f.totalS.toFixed(0), f.npmCache]],
        )}\n\n` +
          `- inside \`npm start\`, at the same time: next build ${f.parts.buildS ?? '-'} s, runtime install ${f.parts.runtimeS ?? '-'} s, SQLite binding ${f.parts.bindingS ?? '-'} s\n` +
          `- ${verdict(f.totalS < TARGETS.firstStartS)} a fresh clone to the first page, with the skills runtime installed, in < ${TARGETS.firstStartS} s: ${f.totalS.toFixed(0)} s\n` +
          `- ${f.warnings.length} warning line${f.warnings.length === 1 ? '' : 's'} on the way${f.warnings.length ? ':' : ''}\n${f.warnings.map((w) => `  - \`${w.trim()}\``).join('\n')}`,
      );
      if (only.length === 1) return;
    }
    const roots = new Map<number, string>();
    const needsSkills = ['discovery', 'cli', 'catalog', 'watch', 'server', 'server-load', 'chat'].some(want);
    for (const size of needsSkills ? SIZES : []) {
      const t = performance.now();
      const root = path.join(work, `skills-${size}`);
      generateSkills(root, size, size);
      roots.set(size, root);
      log(`generated ${size} skills in ${ms(performance.now() - t)} ms (${root})`);
    }

    let discovery: DiscoveryFigures[] = [];
    let cli: CliFigures[] = [];
    let versusPi: VersusPi | null = null;
    let qualityOut: QualityFigures | null = null;
    let catalogOut: TokensPerSkill | null = null;
    let catalog: CatalogFigures[] = [];
    let watch: WatchFigures | null = null;
    let server: ServerStartFigures | null = null;
    let serverBaseline: ServerStartFigures | null = null;
    let serverLoad: ServerLoadFigures[] = [];
    let chat: LatencyFigures[] = [];
    let longChat: LongChatFigures | null = null;
    if (want('discovery')) {
      // Discovery, each size in a fresh process.
      discovery = [];
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
    }

    if (want('cli')) {
      // The CLI, fresh processes.
      cli = await benchCli(roots.get(LARGEST)!, LARGEST, quick, work);
      versusPi = await benchCliVersusPi(roots.get(LARGEST)!, LARGEST, quick ? 3 : 7, work);
      const piLine = versusPi
        ? `- ${verdict(versusPi.ratio <= TARGETS.cliColdVsPi)} cold \`skills list --json\` over ${versusPi.skills} skills (fresh process, no caches) within ${TARGETS.cliColdVsPi.toFixed(1)}x of pi's skills loader in-process over the same folders (SKILLCHAT_PI_SKILLS): ${ms(versusPi.cliP50Ms)} ms vs ${ms(versusPi.piP50Ms)} ms p50, ${versusPi.ratio.toFixed(2)}x (median of ${versusPi.pairs} alternating pairs)`
        : "- INFO cold `skills list --json` vs pi's loader not measured: set SKILLCHAT_PI_SKILLS to a pi-mono checkout's packages/coding-agent/src/core/skills.ts (pi is not vendored)";
      const baseline = (c: CliFigures) => c.command.startsWith('(');
      const cliTarget = (c: CliFigures) =>
        c.command === 'validate'
          ? TARGETS.cliValidateMs
          : c.command.startsWith('match')
            ? TARGETS.cliMatchMs
            : TARGETS.cliListMs;
      emit(
        '`bin/skills` (fresh process each run: sh wrapper, node, the esbuild bundle; `(node -e 0)` is node alone)',
        `${table(
          ['command', 'skills', 'runs', 'p50 ms', 'max ms', 'CPU p50 ms', 'target ms', ''],
          cli.map((c) => [
            c.command,
            c.skills,
            c.runs,
            ms(c.p50Ms),
            ms(c.maxMs),
            ms(c.cpuP50Ms),
            baseline(c) ? '' : cliTarget(c),
            baseline(c) ? '' : verdict(c.p50Ms < cliTarget(c)),
          ]),
        )}\n\n${cli
          .filter((c) => !baseline(c))
          .map(
            (c) =>
              `- ${verdict(c.p50Ms < cliTarget(c))} \`skills ${c.command}\` over ${c.skills} skill${c.skills === 1 ? '' : 's'} in a fresh process, p50 < ${cliTarget(c)} ms: ${ms(c.p50Ms)} ms (CPU ${ms(c.cpuP50Ms)} ms)`,
          )
          .concat(piLine)
          .join('\n')}`,
      );
    }

    if (want('match')) {
      // Matching quality on the labelled set.
      const quality: QualityFigures = matchQuality();
      qualityOut = quality;
      const pct = (n: number) => `${(100 * n).toFixed(1)}%`;
      emit(
        'Matching (labelled set: server/skills/fixtures/match/public-skills.json)',
        `${table(
          ['requests', 'skills', 'top-1 right', 'top-1', 'no-skill requests', 'false activations'],
          [
            [
              'all',
              quality.skills,
              quality.all.top1,
              pct(quality.all.top1Rate),
              quality.all.noSkill,
              quality.all.falseActivations,
            ],
            [
              'tuning half (even)',
              quality.skills,
              quality.tuned.top1,
              pct(quality.tuned.top1Rate),
              quality.tuned.noSkill,
              quality.tuned.falseActivations,
            ],
            [
              'held-out half (odd)',
              quality.skills,
              quality.heldOut.top1,
              pct(quality.heldOut.top1Rate),
              quality.heldOut.noSkill,
              quality.heldOut.falseActivations,
            ],
          ],
        )}\n\n` +
          `- ${verdict(quality.all.top1Rate >= TARGETS.top1)} top-1 accuracy >= ${pct(TARGETS.top1)} over all ${quality.all.requests} requests that need a skill: ${pct(quality.all.top1Rate)} (held-out half alone: ${pct(quality.heldOut.top1Rate)})\n` +
          `- ${verdict(quality.all.falseActivations <= TARGETS.falseActivations)} no false activation on the ${quality.all.noSkill} requests that need no skill: ${quality.all.falseActivations}\n` +
          `- misses: ${quality.all.misses.map((m) => `"${m.text}" (${m.expected ?? 'none'} -> ${m.got ?? 'none'})`).join('; ') || 'none'}`,
      );
    }

    // Skills for the in-process benches.
    const sets = new Map<number, Skill[]>();
    for (const size of want('catalog') || want('chat') ? SIZES : []) {
      const result = await discoverSkills([{ path: roots.get(size)!, scope: 'project', kind: 'configured' }], {
        limits: DEFAULT_LIMITS,
      });
      sets.set(size, result.skills);
    }
    const all = sets.get(LARGEST) ?? [];

    if (want('catalog')) {
      // Catalog.
      const perSkill: TokensPerSkill = tokensPerSkill(all);
      catalogOut = perSkill;
      catalog = benchCatalog(all, [10, ...SIZES]);
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
    }

    if (want('watch')) {
      // Live reload.
      watch = await benchWatch(roots.get(LARGEST)!, work, quick ? 3 : 5);
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
    }

    if (want('server')) {
      // Server start.
      if (hasBuild()) {
        // The same start with an empty skill root: what the first page costs without a scan to share the thread with.
        const empty = path.join(work, 'no-skills');
        fs.mkdirSync(empty, { recursive: true });
        serverBaseline = await benchServerStart(empty, 0, path.join(work, 'baseline'));
        server = await benchServerStart(roots.get(LARGEST)!, LARGEST, work);
        emit(
          `Server start (\`next start\`, ${LARGEST} skills)`,
          `${table(
            ['skills', 'first page (GET /) ms', 'status', 'first scan logged ms', 'RSS after scan MB'],
            [serverBaseline, server].map((f) => [
              f.skills,
              ms(f.firstPageMs),
              f.firstPageStatus,
              ms(f.scanLoggedMs),
              ms(f.rssMB),
            ]),
          )}\n\n` +
            `- ${verdict(server.firstPageMs < server.scanLoggedMs)} the first scan does not block the first page: page at ${ms(server.firstPageMs)} ms, scan logged at ${ms(server.scanLoggedMs)} ms (both from spawn)\n` +
            '- reported, no target: time to first page and RSS (the server process tree).',
        );
      } else {
        emit(
          'Server start',
          '- MISS not measured: no production build of the current sources (.next/BUILD_ID missing or older than them); run `npm run build` first.',
        );
      }
    }

    if (want('server-load')) {
      if (hasBuild()) {
        const empty = path.join(work, 'no-skills');
        const ten = path.join(work, 'skills-10');
        fs.mkdirSync(empty, { recursive: true });
        generateSkills(ten, 10, LARGEST);
        serverLoad = await benchServerLoad({
          trees: [
            { skills: 0, root: empty },
            { skills: 10, root: ten },
            { skills: LARGEST, root: roots.get(LARGEST)! },
          ],
          workDir: work,
          starts: quick ? 1 : 3,
          turns: 20,
          concurrency: 20,
          rounds: quick ? 2 : 5,
          heapDir: process.argv.includes('--heap') ? path.join(OUT, 'heap') : undefined,
        });
        const [none, few, most] = serverLoad as [ServerLoadFigures, ServerLoadFigures, ServerLoadFigures];
        const rss = most.loadedRssMB / none.loadedRssMB;
        const ttft = most.ttftP50 / none.ttftP50;
        const skillsOver = most.firstSkillsMs - few.firstSkillsMs;
        const turnOver = most.firstTurnMs - few.firstTurnMs;
        const heaps = serverLoad.flatMap((f) =>
          f.heapSnapshot
            ? [
                `Heap after the load, ${f.skills} skills (self size by constructor, top 12):\n\n${table(
                  ['what', 'count', 'MB'],
                  heapSummary(f.heapSnapshot).map((h) => [h.what, h.count, h.mb.toFixed(1)]),
                )}`,
              ]
            : [],
        );
        emit(
          `Server under load (\`next start\`, a model endpoint streaming one fixed answer, ${LARGEST} skills vs 10 and none)`,
          `${table(
            [
              'skills',
              'scan logged ms',
              'RSS idle MB',
              'first /api/skills ms (median of starts)',
              'first turn ms (median of starts)',
              'RSS after 21 turns + 20 pages MB',
              `time to first text p50 ms (${most.concurrency} chats at once)`,
              'p99 ms',
            ],
            serverLoad.map((f) => [
              f.skills,
              ms(f.scanMs),
              ms(f.idleRssMB),
              ms(f.firstSkillsMs),
              ms(f.firstTurnMs),
              ms(f.loadedRssMB),
              ms(f.ttftP50),
              ms(f.ttftP99),
            ]),
          )}\n\n` +
            `- ${verdict(rss <= TARGETS.serverRssVsEmpty)} RSS with ${most.skills} skills after the load within ${TARGETS.serverRssVsEmpty}x of the server with none: ${ms(most.loadedRssMB)} MB vs ${ms(none.loadedRssMB)} MB, ${rss.toFixed(2)}x (idle: ${ms(most.idleRssMB)} vs ${ms(none.idleRssMB)} MB)\n` +
            `- ${verdict(skillsOver <= TARGETS.serverFirstOverMs)} first GET /api/skills after the scan with ${most.skills} skills within ${TARGETS.serverFirstOverMs} ms of the same with 10: ${ms(most.firstSkillsMs)} ms vs ${ms(few.firstSkillsMs)} ms (+${ms(skillsOver)} ms)\n` +
            `- ${verdict(turnOver <= TARGETS.serverFirstOverMs)} first chat turn after the scan with ${most.skills} skills within ${TARGETS.serverFirstOverMs} ms of the same with 10: ${ms(most.firstTurnMs)} ms vs ${ms(few.firstTurnMs)} ms (+${ms(turnOver)} ms)\n` +
            `- ${verdict(ttft <= TARGETS.serverTtftVsEmpty)} time to first text at ${most.concurrency} concurrent chats with ${most.skills} skills within ${TARGETS.serverTtftVsEmpty}x of the server with none: p50 ${ms(most.ttftP50)} ms vs ${ms(none.ttftP50)} ms, ${ttft.toFixed(2)}x\n` +
            '- the three servers run side by side, their rounds interleaved; every turn is the first of a new chat.' +
            (heaps.length ? `\n\n${heaps.join('\n\n')}` : ''),
        );
      } else {
        emit(
          'Server under load',
          '- MISS not measured: no production build of the current sources (.next/BUILD_ID missing or older than them); run `npm run build` first.',
        );
      }
    }

    if (want('chat')) {
      // Chat turns, wired as the route does: the registry's skills and matcher, the budgeted catalog per chat.
      const chatSets = [
        { label: 'chat turn', skills: all.slice(0, 10) },
        { label: 'chat turn', skills: all },
      ];
      chat = await benchChat({
        workDir: work,
        skillSets: chatSets,
        rounds: (concurrency) => (concurrency === 1 ? (quick ? 10 : 60) : quick ? 2 : 5),
        sameAnswerRounds: quick ? 10 : 250,
      });
      const find = (name: string, skills: number, concurrency: number) =>
        chat.find(
          (c) =>
            c.name.startsWith(name) &&
            !c.name.endsWith(BEFORE_INCREMENTAL) &&
            !c.name.endsWith(SAME_ANSWER) &&
            c.skills === skills &&
            c.concurrency === concurrency,
        )!;
      const vsFloor = (concurrency: number, skills: number) => {
        const floor = find('bare', 0, concurrency);
        const turn = find('chat turn', skills, concurrency);
        const ratio = turn.totalP50 / floor.totalP50;
        return { floor, turn, ratio };
      };
      const persistenceLines = [1, 20].map((concurrency) => {
        const after = chat.find((c) => c.name === 'chat turn' && c.skills === 10 && c.concurrency === concurrency)!;
        const before = chat.find((c) => c.name.endsWith(BEFORE_INCREMENTAL) && c.concurrency === concurrency)!;
        return `- INFO incremental persistence (answer stored as it streams), ${concurrency} concurrent chat${concurrency === 1 ? '' : 's'}: turn total p50 ${ms(before.totalP50)} ms before (stored only at the end), ${ms(after.totalP50)} ms after`;
      });
      const verdictLines = [1, 20].flatMap((concurrency) =>
        [10, all.length].map((skills) => {
          const { floor, turn, ratio } = vsFloor(concurrency, skills);
          return `- INFO turn with ${skills} skills, ${concurrency} concurrent chat${concurrency === 1 ? '' : 's'}, offline model (its answer differs once there are skills), total p50 ${ms(turn.totalP50)} ms vs the floor's ${ms(floor.totalP50)} ms: ${ratio.toFixed(2)}x`;
        }),
      );
      const same = chat.filter((c) => c.name.endsWith(SAME_ANSWER));
      const sameFloor = same.find((c) => c.skills === 0);
      const sameTurn = same.find((c) => c.skills > 0);
      const sameRatio = sameFloor && sameTurn ? sameTurn.totalP50 / sameFloor.totalP50 : Number.NaN;
      const sameLine =
        sameFloor && sameTurn
          ? `- ${verdict(sameRatio <= TARGETS.turnVsFloor)} turn with ${sameTurn.skills} skills within ${TARGETS.turnVsFloor}x of the floor, both streaming the same fixed answer (no tool call: what the turn itself adds), 1 chat: total p50 ${ms(sameTurn.totalP50)} ms vs ${ms(sameFloor.totalP50)} ms, ${sameRatio.toFixed(2)}x`
          : '';
      const usage = await benchUsageCounts(work);
      const usageLine = `- INFO use counts that order a new chat's catalog, over ${usage.rows.toLocaleString('en-US')} recorded activations: read ${ms(usage.readMs)} ms, kept ${usage.keptMs.toFixed(3)} ms (server/db/activations.ts \`usageCounts\`: only the first call waits for a read; read again in the background each minute)`;
      emit(
        'Chat turn (in-process, offline model with no chunk delay, temp SQLite)',
        `${table(
          [
            'route',
            'skills',
            'concurrent chats',
            'turns',
            'TTFB p50 ms',
            'TTFB p99 ms',
            'total p50 ms',
            'total p99 ms',
          ],
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
        )}\n\nWhere a turn's time goes, 1 chat (p50 ms from the request; steps and text chunks of the answer):\n\n${table(
          ['route', 'skills', 'response', 'first step', 'first text', 'finish', 'end', 'steps', 'text chunks'],
          chat
            .filter((c) => c.concurrency === 1)
            .map(({ name, skills, phases: p }) => [
              name,
              skills,
              ms(p.response),
              ms(p.firstStep),
              ms(p.firstText),
              ms(p.finish),
              ms(p.end),
              p.steps,
              p.textChunks,
            ]),
        )}\n\n${[sameLine, ...verdictLines, ...persistenceLines, usageLine].filter(Boolean).join('\n')}\n` +
          '- The floor is a bare AI SDK route with the same offline model and the same SQLite store and no skills: it reads the chat, stores the user message, streams the answer and stores it.\n' +
          "- Each measured turn is the first of a new chat, so skillchat's turn pays for building that chat's budgeted catalog; later turns of a chat reuse it.",
      );
    }

    if (want('long-chat')) {
      // A chat of 2,000 messages on the production build: the page's HTML and its first paint in Chromium.
      if (hasBuild()) {
        const f = await benchLongChat({ workDir: work, messages: 2000, rounds: quick ? 3 : 5 });
        longChat = f;
        const kb = (bytes: number) => (bytes / 1024).toFixed(1);
        emit(
          `Long chat (\`next start\`, ${f.messages} messages, fresh SQLite; Chromium, a fresh context per round)`,
          `${table(
            [
              'messages',
              'page HTML KB',
              'page HTML ms (p50)',
              'first contentful paint ms (p50)',
              'FCP max ms',
              '2-message chat: HTML ms / FCP ms (p50)',
              'messages rendered',
              'older page ms (p50)',
              'older page KB',
              'whole chat JSON KB',
              'whole chat JSON ms',
            ],
            [
              [
                f.messages,
                kb(f.htmlBytes),
                ms(f.htmlMsP50),
                ms(f.fcpMsP50),
                ms(f.fcpMsMax),
                `${ms(f.shortHtmlMsP50)} / ${ms(f.shortFcpMsP50)}`,
                f.shownMessages,
                ms(f.olderPageMsP50),
                kb(f.olderPageBytes),
                kb(f.wholeChatBytes),
                ms(f.wholeChatMs),
              ],
            ],
          )}\n\n` +
            `- ${verdict(f.htmlBytes < TARGETS.longChatHtmlKB * 1024)} the page of a ${f.messages}-message chat is < ${TARGETS.longChatHtmlKB} KB of HTML: ${kb(f.htmlBytes)} KB\n` +
            `- ${verdict(f.fcpMsP50 < TARGETS.longChatFcpMs)} its first contentful paint in Chromium < ${TARGETS.longChatFcpMs} ms: p50 ${ms(f.fcpMsP50)} ms (max ${ms(f.fcpMsMax)} ms)\n` +
            `- reported, no target: the same page for a chat of 2 messages, measured in the same rounds (what the machine and the app shell cost without a long history); older pages (\`GET /api/chats/:id/messages?before=\`) and the whole chat as JSON (what the page carried before, twice); seeding took ${ms(f.seedMs)} ms.`,
        );
      } else {
        emit(
          'Long chat',
          '- MISS not measured: no production build of the current sources (.next/BUILD_ID missing or older than them); run `npm run build` first.',
        );
      }
    }

    // Script sandbox: per-run overhead of each backend over a bare interpreter start (bench/sandbox.ts).
    const sandbox = want('sandbox') ? await benchSandbox({ quick }) : null;
    let runCgroup: Awaited<ReturnType<typeof benchRunCgroup>> | null = null;
    if (sandbox) {
      emit(
        'Sandbox (per run: a script, and a command through the shell tool, vs the same started bare)',
        sandboxTable(sandbox),
      );
      runCgroup = await benchRunCgroup({ quick });
      emit("A run's own cgroup (memory and processes)", runCgroupTable(runCgroup));
    }
    if (want('sandbox') || want('convert')) {
      emit(
        "LibreOffice in the sandbox (a chat's first and later conversions)",
        officeTable(await benchOffice({ quick })),
      );
    }

    // A run's way out: what its egress proxy adds to a request, and CONNECT throughput (bench/egress.ts).
    if (want('egress'))
      emit("A run's egress proxy (latency added, 50 MB through CONNECT)", egressTable(await benchEgress({ quick })));

    const summary = {
      date: new Date().toISOString(),
      quick,
      machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, loadavg: os.loadavg(), node: process.version },
      targets: TARGETS,
      discovery,
      cli,
      versusPi,
      matching: qualityOut,
      server,
      serverBaseline,
      serverLoad: serverLoad.map(({ heapSnapshot: _, ...f }) => f),
      catalog: { tokensPerSkill: catalogOut, budgets: catalog.map(({ listedNames: _, ...c }) => c) },
      watch,
      chat,
      longChat,
      sandbox,
      runCgroup,
      durationMs: performance.now() - started,
    };
    if (only) {
      log(`--only=${only.join(',')}: bench/out/summary.* not written`);
      return;
    }
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
