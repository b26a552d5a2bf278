/**
 * `eval output PATH`: the skill's output evals (`evals/evals.json`) run as the skill's page runs them, through the
 * real turn with the configured model and sandbox, with the skill and without it; stored in the configured database,
 * so the page shows the run and the next one compares with it. Exit 0 when the with-skill arm passes every case.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createApp } from '../../server/app';
import { LOCAL_USER_ID } from '../../server/db/local-user';
import { isAppError } from '../../server/errors';
import { CASES_FILE, readCasesFile } from '../../server/evals/cases-file';
import { ARM_LABELS, MAX_EVAL_RUNS, type OutputEvalReport } from '../../server/evals/output';
import { type StoredOutputEval, startOutputEval } from '../../server/evals/output-admin';
import { loadSkill } from '../../server/skills/load/skill-file';
import { skillDirArgument } from '../../server/skills/load/skills-ref';
import { loadAppConfig } from './app';
import { type Command, commandHelp, type Io, parseArgs, requireExistingPath, UsageError } from './command';

const pct = (passed: number, total: number) => (total === 0 ? '-' : `${Math.round((100 * passed) / total)}%`);

export function formatOutputReport(report: OutputEvalReport): string {
  const arms = report.arms;
  const head = ['case', ...arms.map((a) => ARM_LABELS[a.arm]), ...(report.earlier ? [ARM_LABELS.earlier] : [])];
  const rows = report.cases.map((c) => [
    c.id,
    ...arms.map((a) => {
      const s = a.cases.find((x) => x.id === c.id);
      return s ? `${s.passed}/${s.total}` : '-';
    }),
    ...(report.earlier
      ? [
          (() => {
            const s = report.earlier.arm.cases.find((x) => x.id === c.id);
            return s ? `${s.passed}/${s.total}` : '-';
          })(),
        ]
      : []),
  ]);
  const total = [
    'overall',
    ...arms.map((a) => `${a.passed}/${a.total} (${pct(a.passed, a.total)})`),
    ...(report.earlier ? [`${report.earlier.arm.passed}/${report.earlier.arm.total}`] : []),
  ];
  const cost = ['time, tokens', ...arms.map((a) => `${(a.durationMs / 1000).toFixed(1)} s, ${a.tokens}`)];
  const table = [head, ...rows, total, cost];
  const widths = head.map((_, i) => Math.max(...table.map((r) => (r[i] ?? '').length)));
  const lines = table.map((r) =>
    r
      .map((cell, i) => (cell ?? '').padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
  const failed = report.runs
    .filter((r) => !r.passed)
    .map(
      (r) =>
        `  ${r.caseId} (${ARM_LABELS[r.arm]}, run ${r.run}): ${r.checks
          .filter((c) => !c.passed)
          .map((c) => c.detail)
          .join('; ')}${r.chatId ? ` [chat ${r.chatId}]` : ''}`,
    );
  return [
    `Output evals of ${report.skill} (${report.model}, ${report.runsPerCase} run(s) per case, version ${report.contentHash.slice(0, 12)})`,
    ...lines,
    ...(failed.length ? ['Failed runs:', ...failed] : []),
    ...(report.problems.length ? ['Problems in evals/evals.json:', ...report.problems.map((p) => `  ${p}`)] : []),
  ].join('\n');
}

/** 0 when the eval finished and the with-skill arm passed every run of every case; 1 otherwise. */
export function exitCodeFor(ended: Pick<StoredOutputEval, 'status' | 'report'>): 0 | 1 {
  if (ended.status !== 'done') return 1;
  const withArm = ended.report.arms.find((a) => a.arm === 'with');
  return withArm && withArm.total > 0 && withArm.passed === withArm.total ? 0 : 1;
}

export const evalOutputCommand: Command = {
  name: 'eval output',
  args: '[OPTIONS] SKILL_DIR',
  summary: "Run a skill's output evals with and without it; exit 0 when every case passes with it.",
  details: [
    "Reads SKILL_DIR/evals/evals.json and runs each case in scratch chats through the\nreal turn (the configured model, the sandbox), with the skill and without it.\nThe run is stored in the configured database (the skill's admin page shows it).\nA failed run's chat is kept; its id is printed.",
    'Exit status: 0 when the with-skill arm passes every run of every case, 1 when\nany fails, 2 on bad input (no such folder, no usable cases).',
  ],
  options: [
    ['--runs N', `Runs per case and arm, 1-${MAX_EVAL_RUNS} (default 1).`],
    ['--json', 'Print the report as JSON.'],
  ],
  async run(args: string[], io: Io) {
    const parsed = parseArgs(
      args,
      { flags: ['--json'], options: ['--runs'], positionals: { names: 'SKILL_DIR', min: 1, max: 1 } },
      evalOutputCommand,
    );
    if (parsed.help) {
      io.out(commandHelp(evalOutputCommand));
      return 0;
    }
    const given = parsed.positionals[0]!;
    requireExistingPath(given, 'SKILL_DIR', evalOutputCommand);
    const dir = path.resolve(skillDirArgument(given));
    const runsText = parsed.options.get('--runs')?.at(-1) ?? '1';
    const runs = Number(runsText);
    if (!/^\d+$/.test(runsText) || runs < 1 || runs > MAX_EVAL_RUNS) {
      throw new UsageError(`Invalid value for '--runs': '${runsText}' is not 1-${MAX_EVAL_RUNS}.`, evalOutputCommand);
    }
    if (!fs.statSync(dir).isDirectory()) {
      io.err(`Error: Not a directory: ${given}\n`);
      return 2;
    }
    const base = loadAppConfig();
    const { skill } = await loadSkill(dir, {
      root: path.dirname(dir),
      scope: 'project',
      relDir: path.basename(dir),
      limits: base.limits,
    });
    if (!skill) {
      io.err(`Error: ${given} does not load as a skill (run \`skills validate\` on it)\n`);
      return 2;
    }
    const cases = await readCasesFile(dir);
    if (!cases || cases.cases.length === 0) {
      io.err(
        `Error: ${cases ? `${CASES_FILE} of "${skill.name}" has no usable case${cases.problems[0] ? `: ${cases.problems[0]}` : ''}` : `Skill "${skill.name}" has no ${CASES_FILE}`}\n`,
      );
      return 2;
    }
    // The folder's parent first, so this copy of the skill is the one evaluated, among everything else installed.
    const config = {
      ...base,
      watch: false,
      roots: [{ path: path.dirname(dir), scope: 'project' as const, kind: 'configured' as const }, ...base.roots],
    };
    const app = await createApp(config);
    try {
      const started = await startOutputEval(app, skill.name, { userId: LOCAL_USER_ID, runs });
      const ended = await started.done;
      io.out(
        parsed.flags.has('--json') ? `${JSON.stringify(ended, null, 2)}\n` : `${formatOutputReport(ended.report)}\n`,
      );
      return exitCodeFor(ended);
    } catch (error) {
      if (isAppError(error) && error.status === 400) {
        io.err(`Error: ${error.message}\n`);
        return 2;
      }
      throw error;
    } finally {
      await app.close();
    }
  },
};
