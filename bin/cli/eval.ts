/**
 * `eval KIND`: a skill's evals against the configured model, one subcommand per kind (`trigger`, `output`). Each kind is
 * imported when it runs, like the commands in bin/skills.ts.
 */
import { type Command, commandHelp, type Io, twoColumns, UsageError } from './command';

const KINDS: Record<string, () => Promise<Command>> = {
  trigger: async () => (await import('./eval-trigger')).evalTriggerCommand,
  output: async () => (await import('./eval-output')).evalOutputCommand,
};

export const evalCommand: Command = {
  name: 'eval',
  args: 'KIND [ARGS]...',
  summary: "Run a skill's evals against the configured model.",
  details: [],
  options: [],
  async run(args: string[], io: Io): Promise<number> {
    const [kind, ...rest] = args;
    if (kind === undefined || kind === '--help' || kind === '-h') {
      const kinds = await Promise.all(Object.values(KINDS).map((load) => load()));
      const list = twoColumns(kinds.map((k) => [k.name.replace(/^eval /, ''), k.summary] as const));
      io[kind === undefined ? 'err' : 'out'](`${commandHelp(evalCommand)}\nKinds:\n${list}\n`);
      return kind === undefined ? 2 : 0;
    }
    const load = Object.hasOwn(KINDS, kind) ? KINDS[kind] : undefined;
    if (!load) throw new UsageError(`No such eval '${kind}'.`, evalCommand);
    return (await load()).run(rest, io);
  },
};
