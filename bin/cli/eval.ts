/** `eval`: a skill's evals for its author; `eval output` (server/evals/output.ts). */
import { type Command, commandHelp, type Io, twoColumns, UsageError } from './command';
import { evalOutputCommand } from './eval-output';

const SUBCOMMANDS: Record<string, Command> = { output: evalOutputCommand };

export const evalCommand: Command = {
  name: 'eval',
  args: 'KIND [OPTIONS] SKILL_DIR',
  summary: "Run a skill's evals (output: with and without the skill).",
  details: [`Kinds:\n${twoColumns(Object.entries(SUBCOMMANDS).map(([k, c]) => [k, c.summary] as const))}`],
  options: [],
  async run(args: string[], io: Io) {
    const [kind, ...rest] = args;
    if (kind === undefined || kind === '--help') {
      io.out(commandHelp(evalCommand));
      return kind === undefined ? 2 : 0;
    }
    const sub = SUBCOMMANDS[kind];
    if (!sub)
      throw new UsageError(`No such eval kind '${kind}' (${Object.keys(SUBCOMMANDS).join(', ')}).`, evalCommand);
    return sub.run(rest, io);
  },
};
