/**
 * `match`: which skills the offline model would pick for a message, best first. Empty output means none is
 * relevant enough: the first answer to "why didn't my skill trigger?".
 */
import { DEFAULT_TUNING, type Matcher, matcherOver } from '../../server/skills/match';
import { buildIndex, decodeIndex, encodeIndex } from '../../server/skills/match-index';
import { walk } from './app';
import { type Command, commandHelp, parseArgs } from './command';

/**
 * The matcher over the skills `list` shows. Its index is kept with the walk (bin/cli/snapshot.ts) in its packed form
 * (server/skills/match-index.ts): an unchanged catalog is matched without parsing a skill, analysing a description or
 * building an object per skill. A kept index that does not decode is built again and replaced.
 */
async function matcherFor(rootDirs: readonly string[]): Promise<Matcher> {
  const walked = await walk(rootDirs);
  const snapshot = walked.snapshot('match', '');
  if (snapshot?.hit) {
    try {
      return matcherOver(decodeIndex(snapshot.hit), DEFAULT_TUNING);
    } catch {
      // Damaged: built again below.
    }
  }
  const { result } = await walked.finish();
  const index = buildIndex(result.skills);
  snapshot?.save(encodeIndex(index));
  return matcherOver(index, DEFAULT_TUNING);
}

export const matchCommand: Command = {
  name: 'match',
  args: '[OPTIONS] TEXT...',
  summary: 'Print the skills that match TEXT, best first, one per line.',
  details: [
    'Uses the matcher the offline model uses, over the same skills as `list`.\nPrints nothing (exit 0) when no skill is relevant enough. Several TEXT\narguments are joined with spaces.',
  ],
  options: [
    ['--root DIR', 'Scan DIR instead of the configured roots (repeatable; first wins).'],
    ['--scores', 'Print each relevance score (0-1) after the name, tab-separated.'],
  ],
  async run(args, io) {
    const parsed = parseArgs(
      args,
      { flags: ['--scores'], options: ['--root'], positionals: { names: 'TEXT...', min: 1, max: Infinity } },
      matchCommand,
    );
    if (parsed.help) {
      io.out(commandHelp(matchCommand));
      return 0;
    }
    const text = parsed.positionals.join(' ');
    const matched = (await matcherFor(parsed.options.get('--root') ?? [])).match(text);
    // Tab-separated so the scores can be cut out with standard tools.
    const scores = parsed.flags.has('--scores');
    io.out(matched.map((m) => (scores ? `${m.name}\t${m.score.toFixed(3)}\n` : `${m.name}\n`)).join(''));
    return 0;
  },
};
