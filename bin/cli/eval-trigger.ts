/**
 * `eval trigger PATH`: the skill's carried trigger queries (evals/trigger-queries.json) run N times each against the
 * configured model (`OPENAI_*`, else the offline model) with the real catalog: the skill at PATH among every skill
 * the app would load. Exit 0 when every query meets its expectation at the threshold, 1 when not, 2 on bad input.
 */
import path from 'node:path';
import { createAccessResolver } from '../../server/access/resolver';
import { QUERIES_FILE, readQueriesFile } from '../../server/evals/queries-file';
import { MAX_RUNS, type TriggerReport } from '../../server/evals/trigger';
import { runTriggerEval } from '../../server/evals/trigger-run';
import { getLanguageModel } from '../../server/model/provider';
import { isProblem } from '../../server/skills/load/diagnostics';
import { loadSkill } from '../../server/skills/load/skill-file';
import { discover } from './app';
import { type Command, commandHelp, type Io, parseArgs, requireExistingPath, UsageError } from './command';

const pct = (v: number | null) => (v === null ? '-' : `${Math.round(v * 100)}%`);

export function formatReport(report: TriggerReport, model: string): string {
  const rows = report.results.map((r) => {
    // What the first step activated instead in the runs that missed this skill: another skill, or none.
    const instead = r.others.map((o) => `${o.name ?? 'none'} ${o.runs}/${r.runs}`).join(', ');
    return [
      r.passed ? 'ok  ' : 'FAIL',
      `${r.modelTriggered}/${r.runs}`.padStart(5),
      (r.shouldTrigger ? 'should' : 'should not').padEnd(10),
      r.text + (instead ? `  [instead: ${instead}]` : ''),
    ].join('  ');
  });
  const failed = report.results.filter((r) => !r.passed).length;
  return (
    `Skill ${report.skill}, model ${model}, ${report.runs} runs per query\n\n` +
    `${rows.join('\n')}\n\n` +
    `Precision ${pct(report.model.precision)}, recall ${pct(report.model.recall)} ` +
    `(matcher: ${pct(report.matcher.precision)}, ${pct(report.matcher.recall)})\n` +
    `A should-trigger query passes at a rate >= ${report.threshold}, a should-not one at <= ${report.threshold}: ` +
    `${report.results.length - failed} of ${report.results.length} passed.\n`
  );
}

export const evalTriggerCommand: Command = {
  name: 'eval trigger',
  args: '[OPTIONS] SKILL_PATH',
  summary: "Run a skill's trigger queries against the configured model.",
  details: [
    `Reads SKILL_PATH/${QUERIES_FILE} (an array of { "query", "should_trigger" }) and runs each query\n` +
      'against the model a new chat gets (OPENAI_* settings, else the offline model), with the\n' +
      'catalog of every skill the app loads and this one. Exit 0 when every query passes, 1 when\n' +
      'one does not, 2 on bad input.',
  ],
  options: [
    ['--runs N', `Runs per query, 1-${MAX_RUNS} (default 3).`],
    ['--json', 'Print the report as JSON.'],
  ],
  async run(args: string[], io: Io): Promise<number> {
    const parsed = parseArgs(
      args,
      { flags: ['--json'], options: ['--runs'], positionals: { names: 'SKILL_PATH', min: 1, max: 1 } },
      this,
    );
    if (parsed.help) {
      io.out(commandHelp(this));
      return 0;
    }
    const runsText = parsed.options.get('--runs')?.at(-1) ?? '3';
    const runs = Number(runsText);
    if (!Number.isInteger(runs) || runs < 1 || runs > MAX_RUNS) {
      throw new UsageError(`Invalid value for '--runs': ${runsText} is not an integer from 1 to ${MAX_RUNS}.`, this);
    }
    const dir = path.resolve(parsed.positionals[0]!);
    requireExistingPath(dir, 'SKILL_PATH', this);
    const { config, result } = await discover([]);
    const loaded = await loadSkill(dir, {
      root: path.dirname(dir),
      scope: 'project',
      relDir: path.basename(dir),
      limits: config.limits,
    });
    if (!loaded.skill) {
      const problems = loaded.diagnostics.filter(isProblem).map((d) => `  - ${d.message}`);
      io.err(`Error: ${parsed.positionals[0]} does not load as a skill:\n${problems.join('\n')}\n`);
      return 2;
    }
    const skill = loaded.skill;
    const file = await readQueriesFile(skill);
    if (!file.present) {
      io.err(`Error: ${skill.name} has no ${QUERIES_FILE}\n`);
      return 2;
    }
    if (file.problems.length > 0 || file.queries.length === 0) {
      const lines = file.problems.length > 0 ? file.problems : [`${QUERIES_FILE} holds no queries`];
      io.err(`Error: ${QUERIES_FILE} of ${skill.name}:\n${lines.map((p) => `  - ${p}`).join('\n')}\n`);
      return 2;
    }
    const selection = getLanguageModel(process.env);
    const report = await runTriggerEval(
      {
        skills: result.skills,
        access: createAccessResolver({
          ...config,
          roots: [...result.roots, { path: path.dirname(dir), scope: 'project', kind: 'configured' }],
        }),
        config,
        model: selection,
      },
      skill,
      file.queries.map((q) => ({ ...q, from: 'file' as const })),
      runs,
    );
    io.out(
      parsed.flags.has('--json')
        ? `${JSON.stringify({ ...report, modelLabel: selection.label }, null, 2)}\n`
        : formatReport(report, selection.label),
    );
    return report.passed ? 0 : 1;
  },
};
