/**
 * `match`: which skills the offline model would pick for a message, best first. Empty output means none is
 * relevant enough: the first answer to "why didn't my skill trigger?".
 */
import { createMatcher, DEFAULT_TUNING, indexSkill, type Matcher, type MatcherDoc } from '../../server/skills/match';
import { walk } from './app';
import { type Command, commandHelp, parseArgs } from './command';

/**
 * The index as kept: every term once (`terms`), each skill's MatcherDoc as numbers into it (its sequence, then its
 * fields as term, field pairs). Numbers parse several times faster than the same terms spelled out each time.
 */
interface KeptIndex {
  names: string[];
  terms: string[];
  docs: Array<[number[], number[]]>;
}

export function packIndex(names: string[], docs: readonly MatcherDoc[]): KeptIndex {
  const ids = new Map<string, number>();
  const terms: string[] = [];
  const id = (term: string) => {
    let n = ids.get(term);
    if (n === undefined) {
      n = terms.push(term) - 1;
      ids.set(term, n);
    }
    return n;
  };
  return {
    names,
    terms,
    docs: docs.map(([sequence, fields]) => [sequence.map(id), fields.flatMap(([term, field]) => [id(term), field])]),
  };
}

export function unpackIndex(kept: KeptIndex): MatcherDoc[] {
  const { terms } = kept;
  return kept.docs.map(([sequence, fields]) => {
    const pairs: Array<[string, number]> = [];
    for (let i = 0; i < fields.length; i += 2) pairs.push([terms[fields[i]!]!, fields[i + 1]!]);
    return [sequence.map((n) => terms[n]!), pairs];
  });
}

/**
 * The matcher over the skills `list` shows. Its index is kept with the walk (bin/cli/snapshot.ts): an unchanged
 * catalog is matched without parsing a skill or analysing a description again.
 */
async function matcherFor(rootDirs: readonly string[]): Promise<Matcher> {
  const walked = await walk(rootDirs);
  const snapshot = walked.snapshot('match', '');
  if (snapshot?.hit) {
    try {
      const kept = JSON.parse(snapshot.hit.toString()) as KeptIndex;
      const docs = unpackIndex(kept);
      return createMatcher(
        kept.names.map((name) => ({ name, description: '' })),
        DEFAULT_TUNING,
        docs,
      );
    } catch {
      // Damaged: built again below.
    }
  }
  const { result } = await walked.finish();
  const docs = result.skills.map(indexSkill);
  snapshot?.save(
    JSON.stringify(
      packIndex(
        result.skills.map((s) => s.name),
        docs,
      ),
    ),
  );
  return createMatcher(result.skills, DEFAULT_TUNING, docs);
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
